#include "core/sampler/thread_scheduling.h"

#include <cerrno>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gilscope {

namespace {

// The kernel's struct sched_attr (glibc 2.36 has no wrapper for sched_setattr).
struct SchedAttr {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
};

} // namespace

bool requestShortTimeSlice(uint64_t sliceUs) {
#ifdef SYS_sched_setattr
    SchedAttr attr{};
    attr.size = sizeof attr;
    attr.policy = SCHED_OTHER;
    // Keeps the thread's nice value: `nice -n -15 gilscope ...` stays in force.
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, 0);
    attr.nice = errno == 0 ? nice : 0;
    attr.runtime = sliceUs * 1000; // the kernel clamps it to [0.1 ms, 100 ms]
    return ::syscall(SYS_sched_setattr, 0, &attr, 0) == 0;
#else
    (void)sliceUs;
    return false;
#endif
}

bool requestRealtimePriority(int priority) {
    sched_param param{};
    param.sched_priority = priority;
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
}

} // namespace gilscope
