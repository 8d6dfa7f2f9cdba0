#pragma once

// Runs Go's own pprof (`go tool pprof`, Debian's golang-go) over a profile, so tests check
// gilscope's .pb.gz files with the reader engines use, not with gilscope's own code.

#include "tests/support/run_gilscope.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace gilscope::test {

// Whether `go` is on PATH; when not, why (for QSKIP/QFAIL).
QString goPprofMissing();
RunResult runGoPprof(const QStringList& args);

// One row of `-top`: a function and its flat and cumulative values.
struct TopRow {
    double flat = 0, cum = 0;
};
// `-top -sample_index=samples` of a file, by function name. ok: it ran and parsed.
QMap<QString, TopRow> goPprofTop(const QString& file, const QStringList& extra, bool* ok,
                                 QString* error);

// One sample of `-raw`: its count and labels ("thread_state" -> "gil").
struct RawSample {
    qint64 count = 0;
    QMap<QString, QString> labels;
};
QList<RawSample> goPprofRawSamples(const QString& file, const QStringList& extra, bool* ok,
                                   QString* error);

} // namespace gilscope::test
