#pragma once

#include "core/util/unique_fd.h"

#include <cstdint>
#include <unordered_map>

namespace gilscope::remote {

// Tells whether a thread is on (or queued for) a CPU, the way CPython does: the state
// letter of /proc/PID/task/TID/stat is 'R'. The file stays open between samples
// (pread on a kept fd is ~3x cheaper than open/read/close).
class ThreadCpuProbe {
public:
    enum class State { OnCpu, Idle, Unknown };

    explicit ThreadCpuProbe(int pid) : pid_(pid) {}
    State state(uint64_t tid);
    // Drops fds of threads not seen since the previous call (threads come and go).
    void endSample();

private:
    struct Entry {
        UniqueFd fd;
        uint64_t lastSeen = 0;
    };
    int pid_;
    uint64_t generation_ = 1;
    std::unordered_map<uint64_t, Entry> fds_;
};

} // namespace gilscope::remote
