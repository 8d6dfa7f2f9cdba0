#pragma once

#include "core/sample/process_counters.h"
#include "core/util/unique_fd.h"

#include <ctime>
#include <optional>

namespace gilscope {

// Reads one process's counters from /proc: resident memory (statm), its thread count
// (stat) and the CPU time of all its threads (its process CPU clock, else stat's ticks).
// The files stay open, so a reading is three syscalls and no path lookup.
class ProcCounterReader {
public:
    // nullopt when the process cannot be seen (gone, or /proc hidden).
    static std::optional<ProcCounterReader> open(int pid);
    // The counters now (timeUs left 0), or nullopt once the process is gone.
    std::optional<ProcessCounters> read() const;

private:
    UniqueFd stat_, statm_;
    clockid_t cpuClock_{};
    bool hasCpuClock_ = false;
    long pageSize_ = 4096;
    long ticksPerSec_ = 100;
};

} // namespace gilscope
