#include "core/remote/process_activity.h"

#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>

namespace gilscope::remote {

ProcessActivity::ProcessActivity(int pid)
    : taskDir_(::open(("/proc/" + std::to_string(pid) + "/task").c_str(),
                      O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    haveClock_ = clock_getcpuclockid(static_cast<pid_t>(pid), &clock_) == 0;
}

int64_t ProcessActivity::taskCount() {
    struct stat st {};
    // procfs adds the number of threads to the directory's links.
    if (!taskDir_ || ::fstat(taskDir_.get(), &st) != 0) return -1;
    return static_cast<int64_t>(st.st_nlink);
}

ProcessActivity::Since ProcessActivity::look() {
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
