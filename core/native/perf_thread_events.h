#pragma once

#include "core/common/error.h"
#include "core/native/native_unwinder.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::native {

// A thread's state as the kernel copied it at one instant, without stopping the thread:
// its user registers and the top of its user stack.
struct PerfSample {
    uint64_t timeNs = 0; // CLOCK_MONOTONIC
    Registers regs;
    uint64_t stackAddr = 0;     // the sampled SP: where `stack` starts
    std::vector<uint8_t> stack; // up to PerfThreadEvents::kStackBytes
    // Taken as the thread stopped running (a switch sample), and it has not run since, as
    // of the last look at its buffer: its state is still this one.
    bool stoppedSince = false;
};

// --native-stacks without pausing: two perf events per target thread, sharing one ring
// buffer, each recording PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER:
// - task-clock, every `periodNs` of the thread's CPU time: a running thread's state at
//   most one period of its own CPU time ago;
// - every context switch away from the thread: a blocked or preempted thread's state
//   as it stopped running, which stays true while it does not run. Where the kernel
//   allows it: a switch happens in kernel mode, so an event that excludes the kernel (all
//   an unprivileged user gets at perf_event_paranoid 2) never fires.
//   The kernel's switch records (PERF_RECORD_SWITCH) then say whether the thread has run
//   since: a switch sample followed by its switch-out record and nothing else.
// So the newest sample of a thread is its state as of its last run (with switch samples),
// never older than one period of CPU. The kernel takes them; gilscope only reads the
// buffers. A thread that has not run or switched since its events opened has no sample yet.
class PerfThreadEvents {
public:
    // perf's own default for --call-graph dwarf. Beyond it the unwinder reads the live
    // stack (the root side, which a thread deeper than the copy has not changed). Half
    // of 16 KiB to copy; the target's slowdown at 10 kHz moved from 18.5% to 13.6% in one
    // side-by-side run, but varies by ±4 points between runs on this VM.
    static constexpr uint32_t kStackBytes = 8192;

    // Checks that the kernel lets this process sample `pid` (perf_event_paranoid,
    // CAP_PERFMON), with the reason and what helps when it does not.
    static Result<std::unique_ptr<PerfThreadEvents>> open(int pid, uint64_t periodNs);
    ~PerfThreadEvents();
    PerfThreadEvents(const PerfThreadEvents&) = delete;
    PerfThreadEvents& operator=(const PerfThreadEvents&) = delete;

    // Opens the events of a thread not tracked yet (false: it could not be, see error()).
    bool track(int tid);
    // The thread's newest sample since it was tracked (nullptr: none yet). Valid until the
    // next call for this thread.
    const PerfSample* newest(int tid);
    // Forgets threads not in `alive` (closes their events).
    void retain(const std::vector<int>& alive);
    const std::string& why() const { return why_; }
    // Whether the kernel records context switches for us (see above).
    bool switchSamples() const { return switchSamples_; }

private:
    struct Thread;
    explicit PerfThreadEvents(uint64_t periodNs);
    bool openThread(int tid, Thread& t);

    uint64_t periodNs_;
    bool switchSamples_ = false;
    std::unordered_map<int, std::unique_ptr<Thread>> threads_;
    std::string why_;
};

} // namespace gilscope::native
