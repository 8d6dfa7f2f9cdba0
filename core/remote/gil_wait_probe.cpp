#include "core/remote/gil_wait_probe.h"

#include <cstdlib>

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
    if (lo == 0 || hi <= lo) return false;
    // "<nr> <arg0> ... <sp> <pc>", nr in decimal and the rest in 0x-hex; "running" or
    // "-1 <sp> <pc>" when the thread is not blocked in a syscall.
    char buf[128];
    if (files_.readHead(tid, buf, sizeof buf) <= 0) return false;
    char* end = nullptr;
    const long nr = std::strtol(buf, &end, 10);
    if (end == buf || nr != kFutexSyscall) return false;
    const uint64_t uaddr = std::strtoull(end, nullptr, 16);
    return uaddr >= lo && uaddr < hi;
}

} // namespace gilscope::remote
