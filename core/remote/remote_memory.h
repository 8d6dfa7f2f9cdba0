#pragma once

#include "core/target/attached_process.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <sys/uio.h>
#include <vector>

namespace gilscope::remote {

// process_vm_readv takes at most IOV_MAX (1024) ranges per call: larger batches are split.
// One range of each call is kept for the target's identity mark (RemoteMemory).
inline constexpr size_t kMaxReadRanges = 1023;

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
    // True when every read that succeeded is known to come from the process attached to
    // (RemoteMemory with an identity mark); false when the caller must ask the door.
    virtual bool readsProveIdentity() const { return false; }

protected:
    int lastErrno_ = 0;
};

// The real thing: process_vm_readv on a live process, one syscall per call.
//
// Made from the door, every call also reads the target's identity mark (its first range),
// and a call whose mark is not the one read at attach fails as a whole with ESTALE: the pid
// then names another process (or the target exec'd a new image), and nothing it read is
// handed out. So a successful read needs no pidfd check after it, which per sample cost as
// much as the read itself. Made from a bare pid (before attach, a scan), nothing is checked.
class RemoteMemory final : public ProcessMemory {
public:
    explicit RemoteMemory(int pid) : pid_(pid) {}
    explicit RemoteMemory(const target::AttachedProcess& door)
        : pid_(door.pid()), mark_(door.identityMark()) {}

    size_t readPartial(uint64_t addr, void* dst, size_t len) override;
    size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) override;
    bool readsProveIdentity() const override { return mark_.has_value(); }

    int pid() const { return pid_; }
    uint64_t syscalls() const { return syscalls_; }

private:
    // process_vm_readv with the mark's range first when there is a mark: the bytes of the
    // caller's ranges read, or -1 with lastErrno_ set.
    ssize_t readv(std::span<const iovec> local, std::span<const iovec> remote);

    int pid_;
    std::optional<target::IdentityMark> mark_;
    std::array<uint8_t, 16> markRead_{};
    std::vector<iovec> local_, remote_; // the call's ranges with the mark's first
    uint64_t syscalls_ = 0;
};

} // namespace gilscope::remote
