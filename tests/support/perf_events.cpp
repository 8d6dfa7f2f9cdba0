#include "tests/support/perf_events.h"

#include <cerrno>
#include <cstring>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gilscope::test {

QString perfEventsRefused() {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 1000000;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    const int fd =
        static_cast<int>(::syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd >= 0) {
        ::close(fd);
        return {};
    }
    return QStringLiteral("perf events are refused here (perf_event_open: %1)")
        .arg(QString::fromLocal8Bit(std::strerror(errno)));
}

} // namespace gilscope::test
