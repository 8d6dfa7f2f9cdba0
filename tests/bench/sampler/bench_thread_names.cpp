// What Python thread names cost the sampler (issue 17): the names are read on a thread of
// their own (ThreadNameWatcher), about once a second and when a new thread appears, so the
// sampler's CPU per tick should not move. Per interpreter, on tests/targets/named_threads.py
// (7 threads, one spinning), all threads, wall mode, 10 kHz: runs with names on and off
// alternate (off-on, on-off, ...), and the medians print side by side: the sampler thread's
// CPU per tick, the achieved rate, the CPU of one read back to back (no sleeps: the
// per-sample code alone), and what one refresh costs on the watcher's thread.
//
//   bench_thread_names [seconds per run = 3] [runs per side = 4]
//
// Measured 2026-12-01 on the 2-core VM under load 16-19 (medians of 4 alternating runs):
//   back-to-back read + name poll, µs CPU, off / on: 3.8 9.13/8.98, 3.9 9.24/9.60,
//   3.10 9.12/8.96, 3.11 5.19/5.08, 3.11 static 5.41/5.44, 3.12 6.79/6.59, 3.13 5.40/5.44,
//   3.14 7.55/7.40, 3.15 9.13/8.92: no difference beyond the noise (±0.4 µs either way).
//   Sampler CPU per 10 kHz tick (wake-ups included) moved by -37..+3 µs between sides, in
//   both directions: the machine's load, not the names. One refresh: 0.11-0.13 ms, once a
//   second, on the watcher's thread.
#include "core/remote/live_stack_source.h"
#include "core/sampler/sampler.h"
#include "tests/support/python_interpreters.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace gilscope;

namespace {

struct CountingSink final : SampleSink {
    uint64_t batches = 0, names = 0;
    void addBatch(const SampleBatch&) override { ++batches; }
    void nameThread(uint64_t, const std::string&) override { ++names; }
};

struct Run {
    double cpuUsPerTick = 0, achieved = 0, missedPct = 0;
    uint64_t names = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

Run measure(StackSource& source, double seconds) {
    CountingSink sink;
    SamplerOptions o;
    o.intervalUs = 100; // 10 kHz
    o.durationSec = seconds;
    o.read.allThreads = true;
    Sampler s(source, sink, o);
    s.start();
    s.wait();
    const SamplerStats st = s.stats();
    const double ticks = double(st.okTicks + st.errors);
    return {ticks > 0 ? 1e6 * st.samplerCpuSec / ticks : 0, st.achievedRateOverall, st.missedPct,
            sink.names};
}

double threadCpuUs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

// CPU of one read and the sampler's name poll, back to back for `seconds`.
double readCpuUs(StackSource& source, double seconds) {
    std::vector<ThreadStack> stacks;
    std::vector<ThreadName> names;
    size_t count = 0;
    uint64_t reads = 0;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    const double c0 = threadCpuUs();
    while (std::chrono::steady_clock::now() < end) {
        source.read(stacks, count);
        source.takeThreadNames(names);
        ++reads;
    }
    return reads ? (threadCpuUs() - c0) / double(reads) : 0;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const double seconds = argc > 1 ? std::max(0.5, std::atof(argv[1])) : 3.0;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 4;
    std::printf("10 kHz, all threads, wall mode, named_threads.py; %.1f s per run, median of %d "
                "runs per side, alternating\n",
                seconds, runs);
    std::printf("%-24s %13s %13s %9s %9s %9s %11s %11s %6s %12s\n", "interpreter", "CPU/tick off",
                "CPU/tick on", "delta", "read off", "read on", "rate off", "rate on", "names",
                "one refresh");
    for (const auto& in : test::findInterpreters()) {
        test::TargetProcess target(in, "named_threads.py");
        if (!target.start()) {
            std::printf("%-24s cannot start: %s\n", qPrintable(in.label),
                        qPrintable(target.error()));
            continue;
        }
        ReadOptions off, on;
        off.allThreads = on.allThreads = true;
        off.cpuState = on.cpuState = false;
        off.threadNames = false;
        auto plain = openLiveProcess(int(target.pid()), off);
        auto named = openLiveProcess(int(target.pid()), on);
        if (!plain || !named) {
            std::printf("%-24s %s\n", qPrintable(in.label),
                        (plain ? named : plain).error().message.c_str());
            continue;
        }
        std::vector<double> cpuOff, cpuOn, rateOff, rateOn, readOff, readOn;
        uint64_t names = 0;
        for (int r = 0; r < runs; ++r) {
            // Alternate which side goes first, so neither always runs second.
            const bool offFirst = r % 2 == 0;
            const Run first = measure(offFirst ? **plain : **named, seconds);
            const Run second = measure(offFirst ? **named : **plain, seconds);
            const Run& a = offFirst ? first : second;
            const Run& b = offFirst ? second : first;
            cpuOff.push_back(a.cpuUsPerTick);
            rateOff.push_back(a.achieved);
            cpuOn.push_back(b.cpuUsPerTick);
            rateOn.push_back(b.achieved);
            names += b.names;
            const double readFirst = readCpuUs(offFirst ? **plain : **named, 0.5);
            const double readSecond = readCpuUs(offFirst ? **named : **plain, 0.5);
            readOff.push_back(offFirst ? readFirst : readSecond);
            readOn.push_back(offFirst ? readSecond : readFirst);
        }
        // One refresh, as the watcher's thread runs it about once a second.
        std::vector<double> refreshMs;
        for (int i = 0; i < 20; ++i) {
            const auto t0 = std::chrono::steady_clock::now();
            (*named)->threadNamesNow();
            refreshMs.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count());
        }
        std::printf("%-24s %10.2f us %10.2f us %+6.2f us %6.2f us %6.2f us %11.0f %11.0f %6llu "
                    "%9.2f ms\n",
                    qPrintable(in.label), median(cpuOff), median(cpuOn),
                    median(cpuOn) - median(cpuOff), median(readOff), median(readOn),
                    median(rateOff), median(rateOn), static_cast<unsigned long long>(names),
                    median(refreshMs));
        std::fflush(stdout);
    }
    return 0;
}
