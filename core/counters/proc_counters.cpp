#include "core/counters/proc_counters.h"

#include "core/util/proc_stat.h"

#include <charconv>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <unistd.h>

namespace gilscope {

namespace {

// The whole small file, read again from its start (procfs makes a fresh copy each time).
std::optional<std::string_view> readAgain(const UniqueFd& fd, char* buf, size_t size) {
    const ssize_t n = ::pread(fd.get(), buf, size - 1, 0);
    if (n <= 0) return std::nullopt;
    return std::string_view(buf, size_t(n));
}

// statm's second field: the resident pages.
std::optional<uint64_t> residentPages(std::string_view statm) {
    const size_t space = statm.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    uint64_t v = 0;
    if (std::from_chars(statm.data() + space + 1, statm.data() + statm.size(), v).ec != std::errc())
        return std::nullopt;
    return v;
}

} // namespace

std::optional<ProcCounterReader>
ProcCounterReader::open(std::shared_ptr<const target::AttachedProcess> door) {
    if (!door) return std::nullopt;
    ProcCounterReader r;
    r.stat_ = door->proc().openAt("stat", O_RDONLY);
    r.statm_ = door->proc().openAt("statm", O_RDONLY);
    if (!r.stat_ || !r.statm_) return std::nullopt;
    r.hasCpuClock_ = clock_getcpuclockid(door->pid(), &r.cpuClock_) == 0;
    r.door_ = std::move(door);
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
    const auto resident = residentPages(*statm);
    // None resident: the process is exiting (its memory already gone), not a reading.
    if (!resident || *resident == 0) return std::nullopt;
    c.rssBytes = *resident * uint64_t(pageSize_);

    const auto stat = readAgain(stat_, buf, sizeof buf);
    if (!stat) return std::nullopt;
    const auto threads = procStatField(*stat, 20); // num_threads
    const auto utime = procStatField(*stat, 14), stime = procStatField(*stat, 15);
    if (!threads || !utime || !stime) return std::nullopt;
    c.threads = uint32_t(*threads);

    timespec ts{};
    if (hasCpuClock_ && clock_gettime(cpuClock_, &ts) == 0)
        c.cpuNs = uint64_t(ts.tv_sec) * 1'000'000'000ULL + uint64_t(ts.tv_nsec);
    else
        c.cpuNs = (*utime + *stime) * (1'000'000'000ULL / uint64_t(ticksPerSec_));
    // The CPU clock goes by pid: once the process has ended it may be another one's.
    if (!door_->stillAttached()) return std::nullopt;
    return c;
}

} // namespace gilscope
