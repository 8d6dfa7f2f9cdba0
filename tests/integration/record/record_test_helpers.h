#pragma once

// Helpers for the `gilscope attach` / `gilscope run` tests: run the real binary,
// read the collapsed file it wrote.

#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace gilscope::test {

struct GilscopeRun {
    int exitCode = -1;
    bool finished = false;
    QString out, err;
    double wallSec = 0;
};

// Runs the gilscope binary with args in workDir; waits up to timeoutMs.
GilscopeRun runGilscope(const QStringList& args, const QString& workDir, int timeoutMs = 60000);

// Starts gilscope without waiting (for Ctrl-C tests). The caller owns the process.
QProcess* startGilscope(const QStringList& args, const QString& workDir);

// Collapsed file → {stack text: count}. ok is false when a line is malformed (a
// half-written file would be).
QMap<QString, qint64> readCollapsed(const QString& path, bool* ok);
// Samples whose stack contains a frame `func (`.
qint64 samplesIn(const QMap<QString, qint64>& stacks, const QString& func);
qint64 totalSamples(const QMap<QString, qint64>& stacks);

} // namespace gilscope::test
