// The machine's floor for a sampler at a given rate: a loop that only wakes up, as a
// sampler's thread does (clock_nanosleep to an absolute deadline, the same timer slack
// gilscope's sampler asks for), and does nothing else. What a profiler costs above this
// is what reading the target costs; below it no profiler at this rate can go.
//
//   floor_loop RATE_HZ SECONDS   ->  "wakeups=N rate=R/s cpu_pct=P us_per_wakeup=U"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/prctl.h>
#include <sys/resource.h>

namespace {

uint64_t nowUs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000 + uint64_t(ts.tv_nsec) / 1000;
}

double cpuUs() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
           double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: floor_loop RATE_HZ SECONDS\n");
        return 2;
    }
    const double rate = std::atof(argv[1]), seconds = std::atof(argv[2]);
    if (rate <= 0 || seconds <= 0) return 2;
    const uint64_t intervalUs = std::max<uint64_t>(1, uint64_t(1e6 / rate));
    // As core/sampler/sampler_tick.cpp: a tenth of the interval, 1-50 µs.
    prctl(PR_SET_TIMERSLACK, std::clamp<uint64_t>(intervalUs * 100, 1000, 50000), 0, 0, 0);
    const double cpu0 = cpuUs();
    const uint64_t start = nowUs(), end = start + uint64_t(seconds * 1e6);
    uint64_t next = start, wakeups = 0;
    while (next < end) {
        next += intervalUs;
        const uint64_t now = nowUs();
        if (now >= next) next += ((now - next) / intervalUs + 1) * intervalUs; // behind: skip
        timespec ts{time_t(next / 1'000'000), long(next % 1'000'000) * 1000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
        }
        ++wakeups;
    }
    const double wall = double(nowUs() - start) / 1e6, cpu = cpuUs() - cpu0;
    std::printf("wakeups=%llu rate=%.0f/s cpu_pct=%.2f us_per_wakeup=%.2f\n",
                static_cast<unsigned long long>(wakeups), double(wakeups) / wall,
                100.0 * cpu / 1e6 / wall, cpu / double(wakeups));
    return 0;
}
