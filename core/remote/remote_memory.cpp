#include "core/remote/remote_memory.h"

#include <cerrno>
#include <sys/uio.h>

namespace gilscope::remote {

size_t RemoteMemory::readPartial(uint64_t addr, void* dst, size_t len) {
    if (addr == 0 || len == 0) {
        lastErrno_ = EFAULT;
        return 0;
    }
    iovec local{dst, len};
    iovec remote{reinterpret_cast<void*>(addr), len};
    ++syscalls_;
    const ssize_t n = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    if (n < 0) {
        lastErrno_ = errno;
        return 0;
    }
    lastErrno_ = static_cast<size_t>(n) == len ? 0 : EFAULT;
    return static_cast<size_t>(n);
}

size_t RemoteMemory::readMany(std::span<const iovec> local, std::span<const iovec> remote) {
    if (local.empty()) return 0;
    ++syscalls_;
    const ssize_t n =
        ::process_vm_readv(pid_, local.data(), local.size(), remote.data(), remote.size(), 0);
    if (n < 0) {
        lastErrno_ = errno;
        return 0;
    }
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
