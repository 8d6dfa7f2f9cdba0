#pragma once

#include "core/sample/process_counters.h"
#include "core/target/attached_process.h"
#include "core/util/unique_fd.h"

#include <ctime>
#include <memory>
#include <optional>

namespace gilscope {

// Reads one process's counters from /proc: resident memory (statm), its thread count
// (stat) and the CPU time of all its threads (its process CPU clock, else stat's ticks).
// The files stay open (opened through the target's door), so a reading is four syscalls
// and no path lookup.
class ProcCounterReader {
public:
    // nullopt when the process cannot be seen (gone, or /proc hidden).
    static std::optional<ProcCounterReader>
    open(std::shared_ptr<const target::AttachedProcess> door);
    // The counters now (timeUs left 0), or nullopt once the process is gone.
    std::optional<ProcessCounters> read() const;

private:
    std::shared_ptr<const target::AttachedProcess> door_;
    UniqueFd stat_, statm_;
    clockid_t cpuClock_{};
    bool hasCpuClock_ = false;
    long pageSize_ = 4096;
    long ticksPerSec_ = 100;
};

} // namespace gilscope
