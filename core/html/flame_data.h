#pragma once

// The data of an HTML flame graph page: the top-down call trees of a recording (all
// threads, then each thread) as compact JSON with a string table, built from the same
// analysis snapshots as `report` and the window's flame graph. A comparison adds, per
// frame, the change of its share against the same call path in a baseline.

#include "core/analysis/profile_snapshot.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gilscope::html {

// What the page's header says about the recording.
struct FlameFacts {
    std::string title;  // "Flame graph" or "Differential flame graph"
    std::string target; // command line or .bin file
    std::string python; // "3.12.4", empty when unknown
    std::string mode;   // "wall", "cpu", ...
    uint64_t intervalUs = 0;
    double durationSec = 0;
    double sampleRate = 0; // achieved, samples/s
    uint64_t samples = 0;  // thread-samples shown
    size_t threads = 0;    // threads in the recording
};

// One tree the page can show: all threads, or one thread.
struct FlameView {
    std::string label;
    uint64_t threadId = 0; // 0: all threads
    std::shared_ptr<const ProfileSnapshot> snapshot;
};

struct FlameComparison {
    std::string baselinePath;
    std::shared_ptr<const ProfileSnapshot> baseline;
    size_t listed = 10; // rows in each list: grew, shrank, only here, only there
};

// The JSON resources/html/*.js read:
//   meta     {title, target, python, mode, intervalUs, durationSec, sampleRate, samples,
//            threads}
//   funcs    {name[], file[] (string ids), line[], module[] (module ids)}
//   modules  {name[], color[] ("#rrggbb", core/analysis/module_color)}
//   views    [{label, tid, samples, f[] (function per frame, -1: the root), p[] (parent
//            frame), t[] (samples through), s[] (own samples), b[] (comparison only: the
//            baseline's share of the same call path, in %)}], frames in preorder
//   diff     (comparison only) {baseline, baselineSamples, currentSamples, fullChange,
//            palette[], grew[], shrank[] ({name, file, line, base, cur, delta}),
//            onlyCurrent[], onlyBaseline[] ({path, pct})}
//   strings  []
// JSON for resources/html/flamegraph.js. `views` must not be empty; the first one is
// shown first. All views come from one model, so function ids are shared. Strings that
// are not UTF-8 are repaired; '<' is written as \u003c so the text can sit in a <script>.
std::string flameGraphJson(const FlameFacts& facts, const std::vector<FlameView>& views,
                           const FlameComparison* comparison = nullptr);

} // namespace gilscope::html
