#include "record_test_helpers.h"

#include "tests/support/shared_dir.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>

namespace gilscope::test {

GilscopeRun runGilscope(const QStringList& args, const QString& workDir, int timeoutMs) {
    QProcess p;
    p.setWorkingDirectory(workDir);
    QElapsedTimer timer;
    timer.start();
    p.start(gilscopeBinary(), args);
    GilscopeRun r;
    r.finished = p.waitForFinished(timeoutMs);
    r.wallSec = timer.elapsed() / 1000.0;
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QProcess* startGilscope(const QStringList& args, const QString& workDir) {
    auto* p = new QProcess;
    p->setWorkingDirectory(workDir);
    p->start(gilscopeBinary(), args);
    p->waitForStarted(10000);
    return p;
}

QMap<QString, qint64> readCollapsed(const QString& path, bool* ok) {
    QMap<QString, qint64> stacks;
    *ok = false;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return stacks;
    const QByteArray data = f.readAll();
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

} // namespace gilscope::test
