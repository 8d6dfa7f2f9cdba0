#include "core/remote/thread_freezer.h"

#include "core/remote/proc_files.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sched.h>
#include <string>
#include <sys/ptrace.h>
#include <unistd.h>

namespace gilscope::remote {

namespace {

// State letter of /proc/PID/task/TID/stat ('t': tracing stop), or 0 when gone.
char taskState(int pid, int tid) {
    const std::string path =
        "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat";
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[512];
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char* p = std::strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : 0;
}

bool gone(char state) {
    return state == 0 || state == 'Z' || state == 'X';
}

uint64_t nowMs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
}

// We do not waitpid() for the stops: `gilscope run` reaps its child from another thread,
// which could take the notification. The stop shows in /proc, and ptrace needs only that.
constexpr uint64_t kStopTimeoutMs = 1000;

} // namespace

Result<FrozenThreads> FrozenThreads::freeze(int pid) {
    FrozenThreads f;
    f.pid_ = pid;
    int firstError = 0;
    for (int tid : listTasks(pid)) {
        if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
            if (!firstError) firstError = errno;
            continue; // exiting, or not ours to trace
        }
        f.tids_.push_back(tid);
        ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    }
    if (f.tids_.empty()) {
        if (firstError == EPERM)
            return makeError(ErrorKind::PermissionDenied,
                             "--blocking: cannot stop process " + std::to_string(pid) +
                                 " (ptrace: " + std::strerror(firstError) +
                                 "); see docs/permissions.md");
        if (!processExists(pid)) return makeError(ErrorKind::ProcessNotFound, "process exited");
        return makeError(ErrorKind::Io, "--blocking: cannot stop process " + std::to_string(pid) +
                                            ": " + std::strerror(firstError));
    }
    const uint64_t deadline = nowMs() + kStopTimeoutMs;
    for (int tid : f.tids_)
        for (char s = taskState(pid, tid); s != 't' && !gone(s); s = taskState(pid, tid)) {
            if (nowMs() > deadline) break; // read anyway; it is counted as any torn read
            sched_yield();
        }
    return f;
}

FrozenThreads::~FrozenThreads() {
    for (int tid : tids_) {
        // A signal that arrived while the thread was stopped is passed on, not lost.
        siginfo_t si{};
        long sig = 0;
        if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si) == 0 &&
            !(si.si_signo == SIGTRAP && si.si_code == (SIGTRAP | (PTRACE_EVENT_STOP << 8))))
            sig = si.si_signo;
        // Detaching needs the thread stopped; one that had not stopped yet will soon
        // (the interrupt is pending), so retry for a while rather than leave it traced.
        const uint64_t deadline = nowMs() + kStopTimeoutMs;
        while (::ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(sig)) != 0 &&
               errno == ESRCH && !gone(taskState(pid_, tid)) && nowMs() < deadline)
            sched_yield();
    }
}

ReadOutcome BlockingStackSource::read(std::vector<ThreadStack>& out, size_t& count) {
    auto frozen = FrozenThreads::freeze(inner_.pid());
    if (!frozen) {
        why_ = frozen.error().message;
        return frozen.error().kind == ErrorKind::ProcessNotFound ? ReadOutcome::ProcessEnded
                                                                 : ReadOutcome::Error;
    }
    why_.clear();
    return inner_.read(out, count); // the threads resume when `frozen` goes
}

} // namespace gilscope::remote
