#include "core/remote/task_file_cache.h"

#include <fcntl.h>
#include <unistd.h>

namespace gilscope::remote {

ssize_t TaskFileCache::readHead(uint64_t tid, char* buf, size_t size) {
    if (tid == 0 || size < 2) return -1;
    auto it = fds_.find(tid);
    if (it == fds_.end()) {
        UniqueFd fd = proc_.openAt("task/" + std::to_string(tid) + "/" + name_, O_RDONLY);
        if (!fd) return -1;
        it = fds_.emplace(tid, Entry{std::move(fd), 0}).first;
    }
    it->second.lastSeen = generation_;
    const ssize_t n = ::pread(it->second.fd.get(), buf, size - 1, 0);
    if (n <= 0) {
        fds_.erase(it);
        return -1;
    }
    buf[n] = '\0';
    return n;
}

void TaskFileCache::endSample() {
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
