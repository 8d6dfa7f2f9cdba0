#pragma once

// A real recording of tests/targets/heavy_light_split.py: heavy_part() takes heavyPct of
// each loop, the target measures the split it really ran, and `gilscope attach --binary`
// records it until it exits. For the diff tests (CLI and window).

#include "tests/support/python_interpreters.h"

#include <QString>

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

} // namespace gilscope::test
