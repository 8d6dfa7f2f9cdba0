#include "core/remote/thread_freezer.h"

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

// State letter of the thread's task/TID/stat ('t': tracing stop), or 0 when gone.
char taskState(const target::AttachedProcess& door, int tid) {
    const auto stat = door.proc().read("task/" + std::to_string(tid) + "/stat", 512);
    if (!stat) return 0;
    const size_t paren = stat->rfind(')');
    return paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 1] == ' '
               ? (*stat)[paren + 2]
               : 0;
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

Result<FrozenThreads> FrozenThreads::freeze(std::shared_ptr<const target::AttachedProcess> door) {
    if (!door) return makeError(ErrorKind::ProcessNotFound, "no process to stop");
    const int pid = door->pid();
    FrozenThreads f;
    f.door_ = door;
    int firstError = 0;
    for (int tid : door->proc().tasks()) {
        if (::ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
            if (!firstError) firstError = errno;
            continue; // exiting, or not ours to trace
        }
        f.tids_.push_back(tid);
        ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
    }
    // Checked after the seizes: a thread id seized once the target had ended may be
    // another process's (f's destructor lets it go).
    if (!door->stillAttached()) return makeError(ErrorKind::ProcessNotFound, "process exited");
    if (f.tids_.empty()) {
        if (firstError == EPERM)
            return makeError(ErrorKind::PermissionDenied,
                             "--blocking: cannot stop process " + std::to_string(pid) +
                                 " (ptrace: " + std::strerror(firstError) +
                                 "); see docs/permissions.md");
        return makeError(ErrorKind::Io, "--blocking: cannot stop process " + std::to_string(pid) +
                                            ": " + std::strerror(firstError));
    }
    const uint64_t deadline = nowMs() + kStopTimeoutMs;
    for (int tid : f.tids_)
        for (char s = taskState(*door, tid); s != 't' && !gone(s); s = taskState(*door, tid)) {
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
               errno == ESRCH && !gone(taskState(*door_, tid)) && nowMs() < deadline)
            sched_yield();
    }
}

ReadOutcome BlockingStackSource::read(std::vector<ThreadStack>& out, size_t& count) {
    auto frozen = FrozenThreads::freeze(inner_.process());
    if (!frozen) {
        why_ = frozen.error().message;
        return frozen.error().kind == ErrorKind::ProcessNotFound ? ReadOutcome::ProcessEnded
                                                                 : ReadOutcome::Error;
    }
    why_.clear();
    return inner_.read(out, count); // the threads resume when `frozen` goes
}

} // namespace gilscope::remote
