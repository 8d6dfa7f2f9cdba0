#include "core/target/pid_fd.h"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gilscope::target {

Result<PidFd> PidFd::open(int pid) {
    if (pid <= 0)
        return makeError(ErrorKind::ProcessNotFound, "no process with pid " + std::to_string(pid) +
                                                         "; check the pid with 'gilscope ps'");
    const long fd = ::syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) {
        if (errno == ESRCH)
            return makeError(ErrorKind::ProcessNotFound,
                             "no process with pid " + std::to_string(pid) +
                                 " exists (it may have exited); check the pid with 'gilscope ps'");
        return makeError(ErrorKind::Internal,
                         "pidfd_open(" + std::to_string(pid) + ") failed: " + std::strerror(errno));
    }
    return PidFd(UniqueFd(int(fd)));
}

bool PidFd::exited() const {
    pollfd p{fd_.get(), POLLIN, 0};
    int n;
    do {
        n = ::poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

} // namespace gilscope::target
