#include "record_test_helpers.h"

#include <QDir>
#include <QFile>
#include <QTextStream>

namespace gilscope::test {

QMap<QString, qint64> readCollapsed(const QString& path, bool* ok) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *ok = false;
        return {};
    }
    return parseCollapsed(f.readAll(), ok);
}

QMap<QString, qint64> parseCollapsed(const QByteArray& data, bool* ok) {
    QMap<QString, qint64> stacks;
    *ok = false;
    if (!data.isEmpty() && !data.endsWith('\n')) return stacks;
    for (const QByteArray& raw : data.split('\n')) {
        if (raw.isEmpty()) continue;
        const QString line = QString::fromUtf8(raw);
        const qsizetype space = line.lastIndexOf(' ');
        if (space <= 0) return stacks;
        bool numberOk = false;
        const qint64 count = line.mid(space + 1).toLongLong(&numberOk);
        if (!numberOk || count <= 0) return stacks;
        stacks[line.left(space)] += count;
    }
    *ok = true;
    return stacks;
}

qint64 samplesIn(const QMap<QString, qint64>& stacks, const QString& func) {
    qint64 n = 0;
    for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
        const QStringList frames = it.key().split(';');
        for (const QString& fr : frames)
            if (fr.startsWith(func + " (")) {
                n += it.value();
                break;
            }
    }
    return n;
}

qint64 totalSamples(const QMap<QString, qint64>& stacks) {
    qint64 n = 0;
    for (qint64 c : stacks)
        n += c;
    return n;
}

bool nothingStopped(qint64 pid) {
    const QString base = QString("/proc/%1/task").arg(pid);
    const QStringList tasks = QDir(base).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    if (tasks.isEmpty()) return false;
    for (const QString& t : tasks) {
        QFile stat(base + "/" + t + "/stat"), status(base + "/" + t + "/status");
        if (!stat.open(QIODevice::ReadOnly) || !status.open(QIODevice::ReadOnly)) continue;
        const QByteArray s = stat.readAll();
        const qsizetype close = s.lastIndexOf(')');
        const QByteArray state = close > 0 ? s.mid(close + 2, 1) : QByteArray();
        if (state == "t" || state == "T") return false; // ptrace stop or group stop
        if (!status.readAll().contains("TracerPid:\t0\n")) return false;
    }
    return true;
}

} // namespace gilscope::test
