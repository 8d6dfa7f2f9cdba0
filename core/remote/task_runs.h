#pragma once

#include "core/remote/still_process.h"
#include "core/remote/task_file_cache.h"
#include "core/util/unique_fd.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace gilscope::remote {

// The kernel's TaskRuns of process `pid`. A thread's arrivals come, where the kernel lets
// us, from a perf event that counts nothing (PERF_COUNT_SW_DUMMY) opened on the thread: the
// kernel rewrites the event's mapped page each time the thread is put on a CPU (so that a
// thread reading its own counters finds them current), and that page's sequence number is
// read with no system call. Otherwise (perf_event_paranoid, seccomp, limits) from
// /proc/PID/task/TID/schedstat: a read per thread, about 1-3 us. Files stay open.
//
// With `switches`, each event also has the kernel record the thread's context switches
// (PERF_RECORD_SWITCH) in a one-page ring that it overwrites: the newest record says
// whether the thread is on a CPU, again with no system call (onCpuNow).
class KernelTaskRuns final : public TaskRuns {
public:
    // `proc`: the target's /proc directory, from its door (outlives this).
    explicit KernelTaskRuns(const target::ProcDir& proc, bool perf = true, bool switches = false);
    ~KernelTaskRuns() override;
    bool list(std::vector<uint64_t>& tids) override;
    int64_t count() override;
    bool arrivals(uint64_t tid, uint64_t& out) override;
    bool onCpuNow(uint64_t tid, bool& onCpu) override;

    size_t perfThreads() const; // threads whose arrivals come from perf
    // "runtime wait arrivals\n"; false without arrival counts (no CONFIG_SCHED_INFO: zeros).
    static bool parseSchedstat(const char* text, uint64_t& arrivals);

private:
    struct Thread;
    std::unique_ptr<Thread> open(uint64_t tid);
    Thread* find(uint64_t tid); // opened on first sight
    void forget(uint64_t tid);

    bool perf_;               // false once the kernel refused a perf event: not asked again
    bool switches_;           // false once the kernel refused switch records
    TaskFileCache schedstat_; // threads without a perf event
    UniqueFd taskDir_;
    // By thread id; a vector, walked in order each tick, rather than a hash map.
    std::vector<std::pair<uint64_t, std::unique_ptr<Thread>>> threads_;
    size_t next_ = 0; // where the next find() looks first
};

} // namespace gilscope::remote
