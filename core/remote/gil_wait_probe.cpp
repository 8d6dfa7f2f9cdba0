#include "core/remote/gil_wait_probe.h"

#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace gilscope::remote {

namespace {

#if defined(__x86_64__)
constexpr long kFutexSyscall = 202;
#elif defined(__aarch64__)
constexpr long kFutexSyscall = 98;
#else
constexpr long kFutexSyscall = -2; // unknown architecture: never matches
#endif

} // namespace

bool GilWaitProbe::waitingIn(uint64_t tid, uint64_t lo, uint64_t hi) {
    if (tid == 0 || lo == 0 || hi <= lo) return false;
    auto it = fds_.find(tid);
    if (it == fds_.end()) {
        const std::string path =
            "/proc/" + std::to_string(pid_) + "/task/" + std::to_string(tid) + "/syscall";
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd) return false;
        it = fds_.emplace(tid, Entry{std::move(fd), 0}).first;
    }
    it->second.lastSeen = generation_;
    // "<nr> <arg0> ... <sp> <pc>", nr in decimal and the rest in 0x-hex; "running" or
    // "-1 <sp> <pc>" when the thread is not blocked in a syscall.
    char buf[128];
    const ssize_t n = ::pread(it->second.fd.get(), buf, sizeof buf - 1, 0);
    if (n <= 0) {
        fds_.erase(it); // the thread has exited
        return false;
    }
    buf[n] = '\0';
    char* end = nullptr;
    const long nr = std::strtol(buf, &end, 10);
    if (end == buf || nr != kFutexSyscall) return false;
    const uint64_t uaddr = std::strtoull(end, nullptr, 16);
    return uaddr >= lo && uaddr < hi;
}

void GilWaitProbe::endSample() {
    if (fds_.size() > 64 && (generation_ & 63) == 0) {
        for (auto it = fds_.begin(); it != fds_.end();) {
            if (it->second.lastSeen + 64 < generation_)
                it = fds_.erase(it);
            else
                ++it;
        }
    }
    ++generation_;
}

} // namespace gilscope::remote
