#pragma once

#include "core/analysis/profile_model.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gilscope {

// `gilscope report --scaling` and `--by pause`: why threads do not run at once.
//
// Scaling: how many threads ran Python at once (ParallelismSummary), and each function's
// wall time (its samples on every thread, inclusive) split by what its threads did: ran
// Python, ran C on a CPU (without the GIL, or detached), were stopped by a stop-the-world
// pause (free-threaded), waited for the GIL, on a lock, on I/O, slept or polled, or
// nothing the recording read. The parts add up to the function's samples.
enum ScalingPart : uint8_t {
    kRanPython,
    kRanC,
    kStoppedOrGilWait, // free-threaded: stopped by a pause; else waiting for the GIL
    kLockWait,
    kIoWait,
    kSleepPoll,
    kOtherPart,
    kScalingParts,
};

struct ScalingRow {
    std::string function, file;
    int32_t line = -1;
    uint64_t total = 0;
    std::array<uint64_t, kScalingParts> parts{};
};

struct ScalingReport {
    ParallelismSummary parallelism;
    bool freeThreaded = false;
    uint64_t intervalUs = 0, samples = 0;
    std::vector<ScalingRow> rows; // by total, the `limit` first (0: all)
};

// Over the filter's range and threads (its state is ignored: the parts are the states).
Result<ScalingReport> scalingReport(const ProfileModel& model, const ProfileFilter& filter,
                                    size_t limit, const CancelToken* cancel = nullptr);
std::string scalingText(const ScalingReport& r);
nlohmann::ordered_json scalingJson(const ScalingReport& r);

// One row per stop-the-world pause, most time lost first: when, how long (the time its
// ticks stand for), how many threads it stopped, the time they lost, and who asked, from
// where.
struct PauseRow {
    double startSec = 0; // from the first sample
    double durationMs = 0, lostMs = 0;
    uint32_t stopped = 0;
    uint64_t requesterTid = 0; // 0: no attached thread was seen (a thread outside Python)
    std::string requesterName, requesterFrame; // "file:line(function)", the Python leaf
};
struct PauseReport {
    bool freeThreaded = false;
    uint64_t ticks = 0;
    double recordedSec = 0;
    std::vector<PauseRow> rows; // longest first, `limit` of them (0: all)
    size_t pauses = 0;          // before the limit
    double pausedMs = 0, lostMs = 0;
};
Result<PauseReport> pauseReport(const ProfileModel& model, const ProfileFilter& filter,
                                size_t limit, const CancelToken* cancel = nullptr);
std::string pauseText(const PauseReport& r);
nlohmann::ordered_json pauseJson(const PauseReport& r);

} // namespace gilscope
