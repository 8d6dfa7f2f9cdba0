#pragma once

// Real recordings of tests/targets/heavy_light_split.py: heavy_part() takes heavyPct of
// each loop, the target measures the split it really ran, and `gilscope attach` records
// it. For the diff tests (CLI and window) and the HTML flame graph tests.

#include "tests/support/python_interpreters.h"

#include <QString>
#include <QStringList>

namespace gilscope::test {

struct SplitRecording {
    QString bin;         // the .bin written
    double heavyPct = 0; // heavy_part's share of heavy+light, as the target measured it
    QString error;       // empty on success
};

// Records into dir/NAME.bin for `seconds` (`-d`) while the target loops for two seconds
// more, so the recording holds the loop only, not the target's start-up or exit, even when
// a busy machine delays the attach. Extra options go to `gilscope attach`.
SplitRecording recordSplit(const Interpreter& interpreter, const QString& dir, const QString& name,
                           int heavyPct, double seconds, const QStringList& extra = {});

// A gated run of the target (three seconds of loop) recorded by `gilscope attach ARGS`
// from the start of its loop to its end: the target loops once the gate file exists,
// which is made once gilscope samples, and after its SHARE line waits for the gate to go,
// which is removed once gilscope was stopped (Ctrl-C), so the recording covers the run
// the target measured however a loaded machine schedules it. The target waits asleep,
// without the GIL: wall mode samples those waits (in the module, outside both parts), gil
// mode does not, and cpu mode only while the machine keeps the CPU from the woken target.
struct GatedRun {
    double heavyPct = 0; // what the target measured
    QString output;      // what gilscope printed
    QString error;       // empty on success
};
GatedRun recordGated(const Interpreter& interpreter, const QString& dir, int heavyPct,
                     const QStringList& args);

} // namespace gilscope::test
