#include "core/counters/proc_counters.h"

#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <unistd.h>

namespace gilscope {

namespace {

UniqueFd openProc(int pid, const char* file) {
    const std::string path = "/proc/" + std::to_string(pid) + "/" + file;
    return UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
}

// The whole small file, read again from its start (procfs makes a fresh copy each time).
std::optional<std::string_view> readAgain(const UniqueFd& fd, char* buf, size_t size) {
    const ssize_t n = ::pread(fd.get(), buf, size - 1, 0);
    if (n <= 0) return std::nullopt;
    return std::string_view(buf, size_t(n));
}

// The n-th space-separated field of `s` (0-based) as a number.
std::optional<uint64_t> field(std::string_view s, int n) {
    size_t pos = 0;
    for (int i = 0; i < n; ++i) {
        pos = s.find(' ', pos);
        if (pos == std::string_view::npos) return std::nullopt;
        ++pos;
    }
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), v);
    if (ec != std::errc()) return std::nullopt;
    return v;
}

} // namespace

std::optional<ProcCounterReader> ProcCounterReader::open(int pid) {
    if (pid <= 0) return std::nullopt;
    ProcCounterReader r;
    r.stat_ = openProc(pid, "stat");
    r.statm_ = openProc(pid, "statm");
    if (!r.stat_ || !r.statm_) return std::nullopt;
    r.hasCpuClock_ = clock_getcpuclockid(pid, &r.cpuClock_) == 0;
    if (const long p = sysconf(_SC_PAGESIZE); p > 0) r.pageSize_ = p;
    if (const long t = sysconf(_SC_CLK_TCK); t > 0) r.ticksPerSec_ = t;
    if (!r.read()) return std::nullopt;
    return r;
}

std::optional<ProcessCounters> ProcCounterReader::read() const {
    char buf[1024];
    ProcessCounters c;
    const auto statm = readAgain(statm_, buf, sizeof buf);
    if (!statm) return std::nullopt;
    const auto resident = field(*statm, 1);
    // None resident: the process is exiting (its memory already gone), not a reading.
    if (!resident || *resident == 0) return std::nullopt;
    c.rssBytes = *resident * uint64_t(pageSize_);

    const auto stat = readAgain(stat_, buf, sizeof buf);
    if (!stat) return std::nullopt;
    // The command name in parentheses may hold spaces: count fields after its ')'.
    const size_t close = stat->rfind(')');
    if (close == std::string_view::npos || close + 2 >= stat->size()) return std::nullopt;
    const std::string_view rest = stat->substr(close + 2);       // field 3 (state) onwards
    const auto threads = field(rest, 17);                        // field 20: num_threads
    const auto utime = field(rest, 11), stime = field(rest, 12); // fields 14 and 15
    if (!threads || !utime || !stime) return std::nullopt;
    c.threads = uint32_t(*threads);

    timespec ts{};
    if (hasCpuClock_ && clock_gettime(cpuClock_, &ts) == 0)
        c.cpuNs = uint64_t(ts.tv_sec) * 1'000'000'000ULL + uint64_t(ts.tv_nsec);
    else
        c.cpuNs = (*utime + *stime) * (1'000'000'000ULL / uint64_t(ticksPerSec_));
    return c;
}

} // namespace gilscope
