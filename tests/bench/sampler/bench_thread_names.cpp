// What Python thread names cost the sampler (issue 17): the names are read on a thread of
// their own (ThreadNameWatcher), about once a second and when a new thread appears, so the
// sampler's CPU per tick should not move. Per interpreter, on tests/targets/named_threads.py
// (7 threads, one spinning), all threads, wall mode, 10 kHz: runs with names on and off
// alternate, and the medians print side by side, with what one refresh costs off the path.
//
//   bench_thread_names [seconds per run = 3] [runs per side = 3]
//
// Measured: see the closing note of issue 17 (docs/thread-names.md quotes the figures).
#include "core/remote/live_stack_source.h"
#include "core/sampling/sampler.h"
#include "tests/support/python_interpreters.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
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

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const double seconds = argc > 1 ? std::max(0.5, std::atof(argv[1])) : 3.0;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    std::printf("10 kHz, all threads, wall mode, named_threads.py; %.1f s per run, median of %d "
                "runs per side, alternating\n",
                seconds, runs);
    std::printf("%-24s %13s %13s %9s %11s %11s %8s %15s\n", "interpreter", "CPU/tick off",
                "CPU/tick on", "delta", "rate off", "rate on", "names", "one refresh");
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
        std::vector<double> cpuOff, cpuOn, rateOff, rateOn;
        uint64_t names = 0;
        for (int r = 0; r < runs; ++r) {
            const Run a = measure(**plain, seconds);
            const Run b = measure(**named, seconds);
            cpuOff.push_back(a.cpuUsPerTick);
            rateOff.push_back(a.achieved);
            cpuOn.push_back(b.cpuUsPerTick);
            rateOn.push_back(b.achieved);
            names += b.names;
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
        std::printf("%-24s %10.2f us %10.2f us %+6.2f us %11.0f %11.0f %8llu %12.2f ms\n",
                    qPrintable(in.label), median(cpuOff), median(cpuOn),
                    median(cpuOn) - median(cpuOff), median(rateOff), median(rateOn),
                    static_cast<unsigned long long>(names), median(refreshMs));
        std::fflush(stdout);
    }
    return 0;
}
