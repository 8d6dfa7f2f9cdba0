#pragma once

#include "core/remote/task_file_cache.h"

#include <cstdint>

namespace gilscope::remote {

// Tells whether a thread is blocked waiting for the GIL: a thread waiting in take_gil()
// sleeps in a futex on the GIL's condition variable or mutex, both of which live inside
// `struct _gil_runtime_state`. /proc/PID/task/TID/syscall names the blocking syscall and
// its arguments ("202 0x<uaddr> ..." for futex on x86_64). Files stay open between samples.
class GilWaitProbe {
public:
    explicit GilWaitProbe(int pid) : files_(pid, "syscall") {}

    // True when thread `tid` is blocked in a futex whose address is in [lo, hi).
    bool waitingIn(uint64_t tid, uint64_t lo, uint64_t hi);
    void endSample() { files_.endSample(); }

private:
    TaskFileCache files_;
};

} // namespace gilscope::remote
