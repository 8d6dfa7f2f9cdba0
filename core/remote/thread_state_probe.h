#pragma once

#include "core/remote/syscall_wait.h"
#include "core/remote/task_file_cache.h"

#include <cstdint>
#include <string_view>

namespace gilscope::remote {

// What the kernel says a thread is doing, from one read of /proc/PID/task/TID/syscall:
// "running" while the thread is runnable (the 'R' of /proc/.../stat, which is how
// CPython decides ON_CPU), otherwise the syscall it is blocked in with its arguments.
// One small file answers both "on a CPU?" and "sleeping in which futex?" (GIL waits),
// and it costs ~1.5-2.5 µs per thread against ~4.2 µs for the stat record alone.
// Files stay open between samples.
class ThreadStateProbe {
public:
    enum class Cpu { OnCpu, Idle, Unknown };
    struct State {
        Cpu cpu = Cpu::Unknown;
        uint64_t futexAddr = 0; // the futex word it sleeps on, 0 when not in futex()
        SyscallWait wait;       // off CPU: why, from the call and its arguments
        uint64_t record = 0;    // keepRecord: a hash of the whole record (call, args, sp, pc)
    };

    // `proc`: the target's /proc directory, from its door (outlives the probe).
    explicit ThreadStateProbe(const target::ProcDir& proc) : files_(proc, "syscall") {}
    // Also read the record whole and hash it (wait frames reuse theirs while it is the
    // same); otherwise only its head, which has the call and the arguments it is told by.
    void keepRecord(bool keep) { keepRecord_ = keep; }
    State read(uint64_t tid);
    void endSample() { files_.endSample(); }

    // Parses the file's text; exposed for tests.
    static State parse(const char* text, bool keepRecord = true);
    // The whole file's stack pointer and pc, for a thread blocked in the kernel ("NR A1
    // ... A6 SP PC" in a system call, "-1 SP PC" elsewhere); false for "running" or a
    // format we do not know.
    static bool parseStackAndPc(std::string_view text, uint64_t& sp, uint64_t& pc);

private:
    TaskFileCache files_;
    bool keepRecord_ = false;
};

} // namespace gilscope::remote
