#include "core/remote/thread_state_probe.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <string_view>

namespace gilscope::remote {

namespace {

#if defined(__x86_64__)
constexpr long kFutexSyscall = 202;
#elif defined(__aarch64__)
constexpr long kFutexSyscall = 98;
#else
constexpr long kFutexSyscall = -2; // unknown architecture: never matches
#endif

constexpr size_t kArgsTold = 3; // classifySyscall reads arguments 0-2 only

} // namespace

ThreadStateProbe::State ThreadStateProbe::parse(const char* text, bool keepRecord) {
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
    if (keepRecord) s.record = std::hash<std::string_view>()(std::string_view(text));
    // The table tells every call by its first three arguments at most.
    uint64_t args[6] = {};
    for (size_t i = 0; i < kArgsTold; ++i) {
        uint64_t& a = args[i];
        const char* at = end;
        a = std::strtoull(at, &end, 16);
        if (end == at) break; // fewer fields ("-1 sp pc" has none of them): zero
    }
    if (nr == kFutexSyscall) s.futexAddr = args[0];
    s.wait = classifySyscall(nr, args);
    return s;
}

bool ThreadStateProbe::parseStackAndPc(std::string_view text, uint64_t& sp, uint64_t& pc) {
    std::string_view fields[10];
    size_t n = 0;
    while (n < std::size(fields)) {
        const size_t start = text.find_first_not_of(" \n");
        if (start == std::string_view::npos) break;
        text.remove_prefix(start);
        const size_t end = std::min(text.find_first_of(" \n"), text.size());
        fields[n++] = text.substr(0, end);
        text.remove_prefix(end);
    }
    if (n != 9 && !(n == 3 && fields[0] == "-1")) return false;
    auto hex = [](std::string_view f, uint64_t& out) {
        if (f.starts_with("0x")) f.remove_prefix(2);
        if (f.empty() || f.size() > 16) return false;
        out = 0;
        for (char c : f) {
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) return false;
            out = out << 4 | static_cast<uint64_t>(d);
        }
        return true;
    };
    return hex(fields[n - 2], sp) && hex(fields[n - 1], pc);
}

ThreadStateProbe::State ThreadStateProbe::read(uint64_t tid) {
    // The whole record: nr, six arguments, sp and pc, each up to 18 characters; the head
    // (nr and three arguments) when only the reason is asked for.
    char buf[192];
    if (files_.readHead(tid, buf, keepRecord_ ? sizeof buf : 64) <= 0) return {};
    return parse(buf, keepRecord_);
}

} // namespace gilscope::remote
