#pragma once

#include "core/remote/thread_state_probe.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace gilscope::remote {

// What StillProcess asks the kernel about a process's threads; an interface, so its rules
// can be tested on a fake (threads that come, go, run or lie).
class TaskRuns {
public:
    virtual ~TaskRuns() = default;
    virtual bool list(std::vector<uint64_t>& tids) = 0; // every thread of the process
    virtual int64_t count() = 0;                        // how many it has now, or -1
    // A number that moves whenever the thread is put on a CPU (false: gone or unreadable).
    virtual bool arrivals(uint64_t tid, uint64_t& out) = 0;
    // Whether the thread is on a CPU now, from the kernel's record of its last switch (one
    // preempted is runnable: on a CPU, as /proc says). False: not known; probe instead.
    virtual bool onCpuNow(uint64_t /*tid*/, bool& /*onCpu*/) { return false; }
};

// Tells, exactly, that no thread of a process has been on a CPU since a read of it: then
// that read's sample stands (its stacks, locks, exceptions and threads), with no thread on
// a CPU. A quiet service's threads sleep almost always, so a host agent reads almost
// nothing of them.
//
// Why it is exact. Before a read every thread's arrivals are taken (t0), then every thread
// is probed (tp), then the memory is read, then the arrivals are taken again (t1). A thread
// asleep at tp that was not put on a CPU in [t0, t1] ran nothing in [tp, t1], so the read
// saw memory no thread of the process changed. Later, arrivals equal to t1's mean no thread
// has run since. No thread came: only a running thread makes one, and the count after the
// read equals the listed threads. A thread woken but not yet on a CPU counts as asleep: it
// has run nothing (/proc would call it running).
class StillProcess {
public:
    using Probe = std::function<ThreadStateProbe::State(uint64_t tid)>;
    // cpuFromSwitches: a thread's state may come from TaskRuns::onCpuNow, without its futex
    // (--mode cpu keeps only threads on a CPU, so what an idle one waits for is not used).
    StillProcess(TaskRuns& tasks, Probe probe, bool cpuFromSwitches = false)
        : tasks_(tasks), probe_(std::move(probe)), cpuFromSwitches_(cpuFromSwitches) {}

    // At the start of a sample. True: still since the last armed read (its sample stands).
    // False: the process is to be read; every thread was probed (probedBefore).
    bool stillSinceLastRead();
    // A thread's probe from stillSinceLastRead, which the read uses instead of its own
    // (nullptr: a thread the listing did not have).
    const ThreadStateProbe::State* probedBefore(uint64_t tid) const;
    // After stillSinceLastRead said false: every thread of the process was probed asleep
    // (and none came since the listing). In --mode cpu that is the whole sample: empty,
    // and it stands for a read (afterRead is not called).
    bool nothingOnCpu();
    // After the read (ok: it gave a sample). Arms when every thread was asleep and none
    // was put on a CPU meanwhile.
    void afterRead(bool ok);

    bool armed() const { return armed_; }
    uint64_t samplesStill() const { return still_; }
    uint64_t statesFromSwitches() const { return fromSwitches_; }

private:
    struct Task {
        uint64_t tid = 0;
        uint64_t arrivals = 0; // t0 of the coming read, or the armed read's
        bool arrivalsOk = false;
        bool probed = false;
        ThreadStateProbe::State state;
        // The arrivals taken before `state` was probed: while they hold, a thread that was
        // asleep then has not run since, and is asleep in the same call (no probe needed).
        uint64_t probedAt = 0;
        bool hasProbe = false;
    };
    void relist();
    void armIfStill(int64_t count);

    TaskRuns& tasks_;
    Probe probe_;
    bool cpuFromSwitches_ = false;
    std::vector<Task> list_; // by tid
    bool listed_ = false;
    bool armed_ = false;
    uint64_t still_ = 0;
    uint64_t fromSwitches_ = 0;
};

} // namespace gilscope::remote
