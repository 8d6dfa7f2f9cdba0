#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sys/uio.h>

namespace gilscope::remote {

// process_vm_readv takes at most IOV_MAX ranges per call: larger batches are split.
inline constexpr size_t kMaxReadRanges = 1024;

// What the reader needs from the target's memory, as py-spy's ProcessMemory trait: the
// walkers and the code cache read through this, so that unit tests can feed them torn,
// looping and truncated frame chains (tests/unit/remote/fake_memory.h). Never throws; a
// failed read reports why through lastErrno() so callers can tell "gone" (ESRCH) from
// "torn" (EFAULT).
class ProcessMemory {
public:
    virtual ~ProcessMemory() = default;

    // Up to len bytes; returns how many were copied (stops at the first unmapped page).
    virtual size_t readPartial(uint64_t addr, void* dst, size_t len) = 0;

    // Several ranges in one call (at most kMaxReadRanges). Returns how many leading ranges
    // were read completely.
    virtual size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) = 0;

    // Any number of ranges, in as few calls as IOV_MAX allows: one readMany per
    // kMaxReadRanges, stopping at the first call that leaves a range unread. Returns how
    // many leading ranges were read completely. local and remote pair up one to one.
    size_t readBatch(std::span<const iovec> local, std::span<const iovec> remote) {
        size_t done = 0;
        while (done < remote.size()) {
            const size_t n = std::min(kMaxReadRanges, remote.size() - done);
            const size_t got = readMany(local.subspan(done, n), remote.subspan(done, n));
            done += got;
            if (got < n) break;
        }
        return done;
    }

    // All-or-nothing read of len bytes.
    bool read(uint64_t addr, void* dst, size_t len) {
        return len == 0 || readPartial(addr, dst, len) == len;
    }

    template <typename T>
    bool readValue(uint64_t addr, T& out) {
        return read(addr, &out, sizeof(T));
    }

    int lastErrno() const { return lastErrno_; }
    bool processGone() const { return lastErrno_ == ESRCH; }

protected:
    int lastErrno_ = 0;
};

// The real thing: process_vm_readv on a live process, one syscall per call.
class RemoteMemory final : public ProcessMemory {
public:
    explicit RemoteMemory(int pid) : pid_(pid) {}

    size_t readPartial(uint64_t addr, void* dst, size_t len) override;
    size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) override;

    int pid() const { return pid_; }
    uint64_t syscalls() const { return syscalls_; }

private:
    int pid_;
    uint64_t syscalls_ = 0;
};

} // namespace gilscope::remote
