#include "core/remote/syscall_wait.h"

namespace gilscope::remote {

namespace {

constexpr int kNone = -1;

struct Call {
    std::string_view name;
    int x86_64, aarch64; // -1: the architecture has no such call
    WaitReason reason;
    int fdArg = kNone;    // which argument is the descriptor waited on
    int countArg = kNone; // poll/select: which argument counts the descriptors (0: a sleep)
};

// Numbers from the kernel's tables (arch/x86/entry/syscalls/syscall_64.tbl and
// include/uapi/asm-generic/unistd.h, which aarch64 uses).
constexpr Call kCalls[] = {
    {"futex", 202, 98, WaitReason::Lock},
    {"futex_waitv", 449, 449, WaitReason::Lock},
    {"flock", 73, 32, WaitReason::Lock, 0},
    {"semop", 65, 193, WaitReason::Lock},
    {"semtimedop", 220, 192, WaitReason::Lock},
    {"read", 0, 63, WaitReason::IoRead, 0},
    {"readv", 19, 65, WaitReason::IoRead, 0},
    {"pread64", 17, 67, WaitReason::IoRead, 0},
    {"preadv", 295, 69, WaitReason::IoRead, 0},
    {"recvfrom", 45, 207, WaitReason::IoRead, 0},
    {"recvmsg", 47, 212, WaitReason::IoRead, 0},
    {"recvmmsg", 299, 243, WaitReason::IoRead, 0},
    {"msgrcv", 70, 188, WaitReason::IoRead},
    {"write", 1, 64, WaitReason::IoWrite, 0},
    {"writev", 20, 66, WaitReason::IoWrite, 0},
    {"pwrite64", 18, 68, WaitReason::IoWrite, 0},
    {"pwritev", 296, 70, WaitReason::IoWrite, 0},
    {"sendto", 44, 206, WaitReason::IoWrite, 0},
    {"sendmsg", 46, 211, WaitReason::IoWrite, 0},
    {"sendmmsg", 307, 269, WaitReason::IoWrite, 0},
    {"sendfile", 40, 71, WaitReason::IoWrite, 0},
    {"splice", 275, 76, WaitReason::IoWrite, 2},
    {"fsync", 74, 82, WaitReason::IoWrite, 0},
    {"fdatasync", 75, 83, WaitReason::IoWrite, 0},
    {"poll", 7, -1, WaitReason::Poll, kNone, 1},
    {"ppoll", 271, 73, WaitReason::Poll, kNone, 1},
    {"select", 23, -1, WaitReason::Poll, kNone, 0},
    {"pselect6", 270, 72, WaitReason::Poll, kNone, 0},
    {"epoll_wait", 232, -1, WaitReason::Poll},
    {"epoll_pwait", 281, 22, WaitReason::Poll},
    {"epoll_pwait2", 441, 441, WaitReason::Poll},
    {"io_getevents", 208, 4, WaitReason::Poll},
    {"io_uring_enter", 426, 426, WaitReason::Poll},
    {"nanosleep", 35, 101, WaitReason::Sleep},
    {"clock_nanosleep", 230, 115, WaitReason::Sleep},
    {"pause", 34, -1, WaitReason::Sleep},
    {"rt_sigsuspend", 130, 133, WaitReason::Sleep},
    {"rt_sigtimedwait", 128, 137, WaitReason::Sleep},
    {"wait4", 61, 260, WaitReason::ChildWait},
    {"waitid", 247, 95, WaitReason::ChildWait},
    {"connect", 42, 203, WaitReason::Connect, 0},
    {"accept", 43, 202, WaitReason::Accept, 0},
    {"accept4", 288, 242, WaitReason::Accept, 0},
};

} // namespace

SyscallArch hostSyscallArch() {
#if defined(__aarch64__)
    return SyscallArch::Aarch64;
#else
    return SyscallArch::X86_64;
#endif
}

SyscallWait classifySyscall(SyscallArch arch, long nr, const uint64_t (&args)[6]) {
    if (nr < 0) return {WaitReason::Other, -1, {}, -1}; // stopped outside a system call
    for (const Call& c : kCalls) {
        if ((arch == SyscallArch::X86_64 ? c.x86_64 : c.aarch64) != nr) continue;
        SyscallWait w{c.reason, -1, c.name, nr};
        if (c.countArg != kNone && args[c.countArg] == 0) w.reason = WaitReason::Sleep;
        // A descriptor is an int: a larger value is not one (a lying or new format).
        if (c.fdArg != kNone && args[c.fdArg] <= 0x7fffffffu) w.fd = int(args[c.fdArg]);
        return w;
    }
    return {WaitReason::Other, -1, {}, nr};
}

} // namespace gilscope::remote
