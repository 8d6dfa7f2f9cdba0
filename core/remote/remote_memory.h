#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <sys/uio.h>

namespace gilscope::remote {

// Reads another process's memory with process_vm_readv. Never throws; a failed read
// reports why through lastErrno() so callers can tell "gone" (ESRCH) from "torn" (EFAULT).
class RemoteMemory {
public:
    explicit RemoteMemory(int pid) : pid_(pid) {}

    // All-or-nothing read of len bytes.
    bool read(uint64_t addr, void* dst, size_t len);

    // Up to len bytes; returns how many were copied (stops at the first unmapped page).
    size_t readPartial(uint64_t addr, void* dst, size_t len);

    // Several ranges in one syscall. Returns how many leading ranges were read completely.
    size_t readMany(std::span<const iovec> local, std::span<const iovec> remote);

    template <typename T>
    bool readValue(uint64_t addr, T& out) {
        return read(addr, &out, sizeof(T));
    }

    int pid() const { return pid_; }
    int lastErrno() const { return lastErrno_; }
    bool processGone() const { return lastErrno_ == ESRCH_VALUE; }
    uint64_t syscalls() const { return syscalls_; }

private:
    static constexpr int ESRCH_VALUE = 3;
    int pid_;
    int lastErrno_ = 0;
    uint64_t syscalls_ = 0;
};

} // namespace gilscope::remote
