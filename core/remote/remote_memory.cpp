#include "core/remote/remote_memory.h"

#include <algorithm>
#include <cerrno>
#include <sys/uio.h>

namespace gilscope::remote {

ssize_t RemoteMemory::readv(std::span<const iovec> local, std::span<const iovec> remote) {
    ++syscalls_;
    if (!mark_) {
        const ssize_t n =
            ::process_vm_readv(pid_, local.data(), local.size(), remote.data(), remote.size(), 0);
        if (n < 0) lastErrno_ = errno;
        return n;
    }
    const size_t markLen = markRead_.size();
    local_.assign(1, iovec{markRead_.data(), markLen});
    local_.insert(local_.end(), local.begin(), local.end());
    remote_.assign(1, iovec{reinterpret_cast<void*>(mark_->addr), markLen});
    remote_.insert(remote_.end(), remote.begin(), remote.end());
    const ssize_t n =
        ::process_vm_readv(pid_, local_.data(), local_.size(), remote_.data(), remote_.size(), 0);
    if (n < 0 && errno != EFAULT) { // EFAULT: the mark's page itself is not mapped
        lastErrno_ = errno;
        return -1;
    }
    if (n < ssize_t(markLen) ||
        !std::equal(markRead_.begin(), markRead_.end(), mark_->bytes.begin())) {
        lastErrno_ = ESTALE;
        return -1;
    }
    return n - ssize_t(markLen);
}

size_t RemoteMemory::readPartial(uint64_t addr, void* dst, size_t len) {
    if (addr == 0 || len == 0) {
        lastErrno_ = EFAULT;
        return 0;
    }
    const iovec local{dst, len};
    const iovec remote{reinterpret_cast<void*>(addr), len};
    const ssize_t n = readv({&local, 1}, {&remote, 1});
    if (n < 0) return 0;
    lastErrno_ = static_cast<size_t>(n) == len ? 0 : EFAULT;
    return static_cast<size_t>(n);
}

size_t RemoteMemory::readMany(std::span<const iovec> local, std::span<const iovec> remote) {
    if (local.empty()) return 0;
    const ssize_t n = readv(local, remote);
    if (n < 0) return 0;
    // Count the leading remote ranges fully covered by the bytes copied.
    size_t left = static_cast<size_t>(n), done = 0;
    for (const iovec& r : remote) {
        if (left < r.iov_len) break;
        left -= r.iov_len;
        ++done;
    }
    lastErrno_ = done == remote.size() ? 0 : EFAULT;
    return done;
}

} // namespace gilscope::remote
