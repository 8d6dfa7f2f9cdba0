#pragma once

#include "core/remote/task_file_cache.h"

#include <cstdint>

namespace gilscope::remote {

// Tells whether a thread is on (or queued for) a CPU, the way CPython does: the state
// letter of /proc/PID/task/TID/stat is 'R'. The file stays open between samples
// (pread on a kept fd is ~3x cheaper than open/read/close).
class ThreadCpuProbe {
public:
    enum class State { OnCpu, Idle, Unknown };

    explicit ThreadCpuProbe(int pid) : files_(pid, "stat") {}
    State state(uint64_t tid);
    void endSample() { files_.endSample(); }

private:
    TaskFileCache files_;
};

} // namespace gilscope::remote
