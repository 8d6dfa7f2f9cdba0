#include "ui/analysis/analysis_result.h"

#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QStringList>

namespace gilscope::ui {

QString moduleOf(const std::string& file) {
    const QString path = QString::fromStdString(file);
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    // The directory right after site-packages / dist-packages / pythonX.Y is the package.
    static const QRegularExpression stdlib(QStringLiteral("^python\\d+\\.\\d+t?$"));
    for (int i = parts.size() - 2; i >= 0; --i) {
        const QString& p = parts[i];
        if (p == QLatin1String("site-packages") || p == QLatin1String("dist-packages") ||
            stdlib.match(p).hasMatch()) {
            QString next = parts[i + 1];
            if (next.endsWith(QLatin1String(".py"))) next.chop(3);
            return next;
        }
    }
    QString base = QFileInfo(path).fileName();
    if (base.endsWith(QLatin1String(".py"))) base.chop(3);
    return base.isEmpty() ? path : base;
}

QColor moduleColor(const std::string& file) {
    return QColor::fromHsv(int(qHash(moduleOf(file)) % 360u), 110, 235);
}

QColor searchedFill(const QColor& fill, bool searching, bool matched) {
    if (!searching) return fill;
    if (matched) return QColor(230, 40, 160);
    QColor faded = fill.lighter(125);
    faded.setHsv(faded.hue(), 30, faded.value());
    return faded;
}

QString functionName(const ProfileSnapshot& s, uint32_t func) {
    if (func >= s.functions.size()) return QStringLiteral("(all)");
    return QString::fromStdString(s.functions[func].name);
}

QString functionLocation(const ProfileSnapshot& s, uint32_t func) {
    if (func >= s.functions.size()) return {};
    const FunctionInfo& f = s.functions[func];
    const QString file = QString::fromStdString(f.file);
    return f.firstLine >= 0 ? file + QLatin1Char(':') + QString::number(f.firstLine) : file;
}

QString threadsShown(const ProfileSnapshot& s) {
    const size_t all = s.threads.size();
    if (!s.filter.threads.empty())
        return QObject::tr("%1 of %2 threads").arg(s.filter.threads.size()).arg(all);
    return all == 1 ? QObject::tr("1 thread") : QObject::tr("all %1 threads").arg(all);
}

} // namespace gilscope::ui
