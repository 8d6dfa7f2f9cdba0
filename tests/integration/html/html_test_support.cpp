#include "html_test_support.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace gilscope::test {

namespace {

QString unescape(QString s) {
    static const QRegularExpression numeric(QStringLiteral("&#(\\d+);"));
    for (auto m = numeric.match(s); m.hasMatch(); m = numeric.match(s))
        s.replace(m.capturedStart(), m.capturedLength(), QChar(m.captured(1).toInt()));
    return s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
}

template <typename Fn>
void forEachFunctionRow(const QString& dom, Fn&& fn) {
    static const QRegularExpression row(QStringLiteral(
        "<tr(?: class=\"more\")? data-function=\"[^\"]*\"><td class=\"fn\">(.*?)</td><td>(.*?)</td>"
        "<td class=\"n own\">([\\d.]+)%</td><td class=\"n total\">([\\d.]+)%</td>"
        "<td class=\"n\">(\\d+)</td><td class=\"n\">(\\d+)</td></tr>"));
    for (auto it = row.globalMatch(dom); it.hasNext();) {
        const auto m = it.next();
        QString place = unescape(m.captured(2));
        static const QRegularExpression line(QStringLiteral(":-?\\d+$"));
        place.remove(line); // "file:line" (an empty file name too) to "file"
        fn(unescape(m.captured(1)),
           RenderedFunction{place, m.captured(3).toDouble(), m.captured(4).toDouble(),
                            m.captured(5).toLongLong(), m.captured(6).toLongLong()});
    }
}

} // namespace

QMap<QString, RenderedFunction> renderedFunctions(const QString& dom) {
    QMap<QString, RenderedFunction> out;
    forEachFunctionRow(dom, [&](const QString& name, const RenderedFunction& f) {
        if (!out.contains(name) || out[name].total < f.total) out[name] = f;
    });
    return out;
}

QMap<QString, RenderedFunction> renderedFunctionsByFile(const QString& dom) {
    QMap<QString, RenderedFunction> out;
    forEachFunctionRow(dom, [&](const QString& name, const RenderedFunction& f) {
        out[name + "\n" + f.file] = f;
    });
    return out;
}

QMap<QString, RenderedChange> renderedChanges(const QString& dom, const QString& rowClass) {
    const QRegularExpression row(
        "<tr class=\"" + rowClass +
        "\" data-function=\"[^\"]*\"><td class=\"fn\">(.*?)</td><td>.*?</td>"
        "<td class=\"n\">([\\d.]+)%</td><td class=\"n\">([\\d.]+)%</td>"
        "<td class=\"n delta\">([+\u2212]?)([\\d.]+) pts</td></tr>");
    QMap<QString, RenderedChange> out;
    for (auto it = row.globalMatch(dom); it.hasNext();) {
        const auto m = it.next();
        const double size = m.captured(5).toDouble();
        out[unescape(m.captured(1))] = {m.captured(2).toDouble(), m.captured(3).toDouble(),
                                        m.captured(4) == QStringLiteral("\u2212") ? -size : size};
    }
    return out;
}

CpythonPage readCpythonPage(const QString& path) {
    CpythonPage page;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return page;
    const QByteArray text = f.readAll();
    const QByteArray marker = "const EMBEDDED_DATA = ";
    const qsizetype start = text.indexOf(marker);
    if (start < 0) return page;
    const qsizetype from = start + marker.size();
    const qsizetype end = text.indexOf(";\n", from);
    const QJsonObject root = QJsonDocument::fromJson(text.mid(from, end - from)).object();
    if (root.isEmpty()) return page;
    const QJsonArray strings = root["strings"].toArray();
    // Control characters as the gilscope page shows them: \xNN.
    auto str = [&](const QJsonValue& v) {
        QString out;
        for (const QChar c : strings[v.toInt()].toString())
            out += c.unicode() < 0x20 || c.unicode() == 0x7f
                       ? QString("\\x%1").arg(c.unicode(), 2, 16, QChar('0'))
                       : QString(c);
        return out;
    };
    std::function<void(const QJsonObject&)> walk = [&](const QJsonObject& n) {
        qint64 below = n["self"].toInteger();
        for (const auto& c : n["children"].toArray()) {
            below += c.toObject()["value"].toInteger();
            walk(c.toObject());
        }
        if (n.contains("funcname")) {
            page.own[str(n["funcname"]) + "\n" + str(n["filename"])] += n["self"].toInteger();
            page.pruned += n["value"].toInteger() - below;
        }
    };
    walk(root);
    // Without a single root function, the root holds the top frames (no self of its own).
    if (!root.contains("funcname")) {
        qint64 below = 0;
        for (const auto& c : root["children"].toArray())
            below += c.toObject()["value"].toInteger();
        page.pruned += root["value"].toInteger() - below;
    }
    page.ok = true;
    return page;
}

} // namespace gilscope::test
