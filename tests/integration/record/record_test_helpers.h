#pragma once

// Helpers for the `gilscope attach` / `gilscope run` tests: read the collapsed file the
// real binary wrote (tests/support/run_gilscope.h runs it).

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

namespace gilscope::test {

// Collapsed file → {stack text: count}. ok is false when a line is malformed (a
// half-written file would be).
QMap<QString, qint64> readCollapsed(const QString& path, bool* ok);
QMap<QString, qint64> parseCollapsed(const QByteArray& data, bool* ok);
// Samples whose stack contains a frame `func (`.
qint64 samplesIn(const QMap<QString, qint64>& stacks, const QString& func);
qint64 totalSamples(const QMap<QString, qint64>& stacks);
// No thread of `pid` is in a ptrace stop or traced by anyone.
bool nothingStopped(qint64 pid);

} // namespace gilscope::test
