#pragma once

#include "core/util/unique_fd.h"

#include <cstdint>
#include <unordered_map>

namespace gilscope::remote {

// Tells whether a thread is blocked waiting for the GIL: a thread waiting in take_gil()
// sleeps in a futex on the GIL's condition variable or mutex, both of which live inside
// `struct _gil_runtime_state`. /proc/PID/task/TID/syscall names the blocking syscall and
// its arguments ("202 0x<uaddr> ..." for futex on x86_64). Files stay open between samples.
class GilWaitProbe {
public:
    explicit GilWaitProbe(int pid) : pid_(pid) {}

    // True when thread `tid` is blocked in a futex whose address is in [lo, hi).
    bool waitingIn(uint64_t tid, uint64_t lo, uint64_t hi);
    // Drops fds of threads not seen for a while (threads come and go).
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
