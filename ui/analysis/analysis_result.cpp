#include "ui/analysis/analysis_result.h"

#include "core/analysis/module_color.h"

#include <QObject>
#include <QStringList>

namespace gilscope::ui {

QString moduleOf(const std::string& file) {
    return QString::fromStdString(gilscope::moduleOf(file));
}

QColor moduleColor(const std::string& file) {
    const Rgb c = gilscope::moduleColor(file); // core's rule, shared with the HTML output
    return QColor(c.r, c.g, c.b);
}

QColor functionColor(const FunctionInfo& f) {
    const Rgb c = frameColor(f.file, f.native);
    return QColor(c.r, c.g, c.b);
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
    if (f.native) return QObject::tr("native code in %1").arg(file);
    return f.firstLine >= 0 ? file + QLatin1Char(':') + QString::number(f.firstLine) : file;
}

QString threadsShown(const ProfileSnapshot& s) {
    const size_t all = s.threads.size();
    if (!s.filter.threads.empty())
        return QObject::tr("%1 of %2 threads").arg(s.filter.threads.size()).arg(all);
    return all == 1 ? QObject::tr("1 thread") : QObject::tr("all %1 threads").arg(all);
}

QString requestShown(const ProfileFilter& f, const TransformStack& transforms, uint64_t originUs) {
    QStringList parts;
    if (f.threads.empty())
        parts << QObject::tr("every thread");
    else if (f.threads.size() == 1)
        parts << QObject::tr("thread %1").arg(f.threads.front());
    else
        parts << QObject::tr("%1 threads").arg(f.threads.size());
    if (f.hasRange) {
        const auto sec = [originUs](uint64_t t) {
            return t > originUs ? double(t - originUs) / 1e6 : 0.0;
        };
        parts << QObject::tr("%1 s – %2 s")
                     .arg(sec(f.startUs), 0, 'f', 3)
                     .arg(sec(f.endUs), 0, 'f', 3);
    }
    parts << QString::fromUtf8(stateFilterLabel(f.state).data());
    if (!transforms.empty()) parts << QString::fromStdString(transformsLabel(transforms));
    return parts.join(QStringLiteral(" · "));
}

} // namespace gilscope::ui
