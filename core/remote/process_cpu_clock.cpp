#include "core/remote/process_cpu_clock.h"

#include <sys/types.h>

namespace gilscope::remote {

ProcessCpuClock::ProcessCpuClock(int pid) {
    haveClock_ = clock_getcpuclockid(static_cast<pid_t>(pid), &clock_) == 0;
}

ProcessCpuClock::Since ProcessCpuClock::look() {
    timespec ts{};
    if (!haveClock_ || clock_gettime(clock_, &ts) != 0) {
        haveLast_ = false;
        return Since::Unknown;
    }
    const uint64_t ns = uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
    const bool first = !haveLast_;
    const bool idle = !first && ns == lastNs_;
    haveLast_ = true;
    lastNs_ = ns;
    if (first) return Since::Unknown;
    if (!idle) {
        idleRun_ = 0;
        return Since::Ran;
    }
    if (++idleRun_ > kMaxIdleRun) {
        idleRun_ = 0;
        return Since::Unknown;
    }
    return Since::Idle;
}

} // namespace gilscope::remote
