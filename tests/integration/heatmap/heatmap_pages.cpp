#include "heatmap_pages.h"

#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QRegularExpression>

namespace gilscope::test {

QString htmlUnescape(QString text) {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
    text.replace("&#39;", "'").replace("&#x27;", "'");
    return text.replace("&amp;", "&");
}

QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

namespace {

QMap<QString, QString> indexBy(const QString& dir, const QRegularExpression& link) {
    QMap<QString, QString> out;
    auto it = link.globalMatch(readAll(dir + "/index.html"));
    while (it.hasNext()) {
        const auto m = it.next();
        out.insert(htmlUnescape(m.captured(2)), m.captured(1));
    }
    return out;
}

} // namespace

QMap<QString, QString> gilscopeIndex(const QString& dir) {
    static const QRegularExpression link(
        "<td class=\"name\"><a href=\"(file_\\d+\\.html)\">([^<]*)</a>");
    return indexBy(dir, link);
}

QMap<QString, QString> cpythonIndex(const QString& dir) {
    static const QRegularExpression link(
        "<a href=\"(file_\\d+\\.html)\" class=\"file-link\" title=\"([^\"]*)\"");
    return indexBy(dir, link);
}

FileCounts gilscopePage(const QString& path) {
    static const QRegularExpression row("id=\"line-(\\d+)\" data-own=\"(\\d+)\" "
                                        "data-total=\"(\\d+)\"");
    FileCounts out;
    auto it = row.globalMatch(readAll(path));
    while (it.hasNext()) {
        const auto m = it.next();
        out.insert(m.captured(1).toInt(), {m.captured(2).toLongLong(), m.captured(3).toLongLong()});
    }
    return out;
}

FileCounts cpythonPage(const QString& path) {
    static const QRegularExpression row("id=\"line-(\\d+)\" title=\"Self: ([\\d,]+), "
                                        "Total: ([\\d,]+)\"");
    FileCounts out;
    auto it = row.globalMatch(readAll(path));
    while (it.hasNext()) {
        const auto m = it.next();
        out.insert(m.captured(1).toInt(), {m.captured(2).remove(',').toLongLong(),
                                           m.captured(3).remove(',').toLongLong()});
    }
    return out;
}

QString renderedDom(const QString& file, QString* why) {
    const RenderedPage page = renderPage(file);
    if (!page.ok || page.dom.isEmpty()) {
        *why = page.error;
        return {};
    }
    return page.dom;
}

} // namespace gilscope::test
