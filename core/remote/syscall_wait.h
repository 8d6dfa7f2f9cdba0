#pragma once

#include "core/sample/wait_reason.h"

#include <cstdint>
#include <string_view>

namespace gilscope::remote {

// The kernel's syscall numbers differ per architecture; both tables are here so that
// the aarch64 build needs nothing new and a test on x86_64 checks both.
enum class SyscallArch : uint8_t { X86_64, Aarch64 };
SyscallArch hostSyscallArch();

// What one blocked system call says about why its thread waits.
struct SyscallWait {
    WaitReason reason = WaitReason::Unknown;
    int fd = -1;                // the descriptor waited on (I/O, connect, accept), else -1
    std::string_view name = {}; // the call's name ("recvfrom"), empty for one not in the table
    long nr = -1;               // the call's number (-1: stopped outside a system call)
    bool operator==(const SyscallWait&) const = default;
};

// From the number and the arguments of /proc/PID/task/TID/syscall (only 0-2 are read). A select,
// poll or ppoll with no descriptors is a sleep; a call not in the table is WaitReason::Other.
SyscallWait classifySyscall(SyscallArch arch, long nr, const uint64_t (&args)[6]);
inline SyscallWait classifySyscall(long nr, const uint64_t (&args)[6]) {
    return classifySyscall(hostSyscallArch(), nr, args);
}

} // namespace gilscope::remote
