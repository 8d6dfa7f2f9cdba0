#include "core/remote/thread_state_probe.h"

#include <cstdlib>
#include <cstring>

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

ThreadStateProbe::State ThreadStateProbe::parse(const char* text) {
    State s;
    // "running", or "<nr> <arg0> ... <arg5> <sp> <pc>" (nr decimal, the rest 0x-hex),
    // or "-1 <sp> <pc>" when it is stopped outside a syscall.
    if (std::strncmp(text, "running", 7) == 0) {
        s.cpu = Cpu::OnCpu;
        return s;
    }
    char* end = nullptr;
    const long nr = std::strtol(text, &end, 10);
    if (end == text) return s; // not a format we know: Unknown
    s.cpu = Cpu::Idle;
    if (nr == kFutexSyscall) s.futexAddr = std::strtoull(end, nullptr, 16);
    return s;
}

ThreadStateProbe::State ThreadStateProbe::read(uint64_t tid) {
    // The head holds nr and arg0; the rest of the record is not needed.
    char buf[48];
    if (files_.readHead(tid, buf, sizeof buf) <= 0) return {};
    return parse(buf);
}

} // namespace gilscope::remote
