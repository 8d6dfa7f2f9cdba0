#pragma once

#include "core/util/unique_fd.h"

#include <cstdint>
#include <ctime>

namespace gilscope::remote {

// Cheap facts about a whole process, for the host agent's shortcuts. Whether it used any
// CPU since the last look, from its CPU-time clock: one clock_gettime, for which the
// kernel sums the runtime of all its threads. A process that
// did not run has no thread on a CPU, so its threads need not be asked one by one
// (/proc/PID/task/TID/syscall, ~8 µs each): the host agent's shortcut for its many
// quiet services. A thread waiting for the GIL wakes every switch interval (5 ms), so a
// process with a waiter is never idle for a 10 ms tick.
class ProcessActivity {
public:
    enum class Since { Ran, Idle, Unknown };
    // Unknown answers in a row past this many Idle ones: the caller then reads the
    // process in full, which also notices one that exited but whose clock still answers
    // (a zombie).
    static constexpr int kMaxIdleRun = 50;

    explicit ProcessActivity(int pid);
    // Unknown on the first look and whenever the clock cannot be read (the process is gone).
    Since look();
    // How many threads it has: the link count of /proc/PID/task (one fstat). -1 if unknown.
    int64_t taskCount();

private:
    clockid_t clock_ = 0;
    bool haveClock_ = false;
    bool haveLast_ = false;
    uint64_t lastNs_ = 0;
    int idleRun_ = 0;
    UniqueFd taskDir_;
};

} // namespace gilscope::remote
