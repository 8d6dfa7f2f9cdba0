// What `--mode cpu` costs and saves on a mostly idle target (tests/targets/mostly_idle.py:
// 18 threads, 16 of them asleep 30 frames deep, one worker running ~5% of the time):
// median cost of one all-threads read and the stacks it hands on, per mode.
//
//   bench_mode_filter [samples=5000]
//
// wall reads every thread without probing /proc; all probes and walks every thread (the
// Gecko format); cpu probes each thread's /proc state and walks only the ones on CPU;
// gil walks only the GIL holder.
//
// Measured 2026-11-30 on the 2-core VM under load ~12 (median µs per read, stacks/read):
//   3.8-3.10:  wall ~231 (18)  all ~271 (18)  cpu ~43 (0.1-0.2)  gil ~9
//   3.11-3.15: wall 44-63 (18) all 79-92 (18) cpu 43-45 (0.1-0.2) gil 9-12
// So cpu mode costs the /proc probe (~2.4 µs a thread) and saves the walks: on 3.11+ it
// costs about what wall mode does and ~40 µs less than all mode; on 3.8-3.10, whose walks
// are expensive, it is 5x cheaper than wall. Either way the sinks get ~1% of the stacks.
// wall+blocking (--blocking: every thread stopped by ptrace around the read) costs
// 410-440 µs per read on 3.11-3.15 (wall: 45-56), 650-1050 on 3.8-3.10: ~20 µs a thread.
#include "core/remote/live_stack_source.h"
#include "core/remote/thread_freezer.h"
#include "tests/support/python_interpreters.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace gilscope;

namespace {

struct Figures {
    double medianUs = 0, p90Us = 0, stacksPerRead = 0;
    int errors = 0;
};

bool measure(StackSource& src, int samples, Figures& f) {
    std::vector<ThreadStack> stacks;
    size_t count = 0;
    for (int i = 0; i < 200; ++i)
        src.read(stacks, count); // warm caches
    std::vector<double> us;
    uint64_t handed = 0;
    for (int i = 0; i < samples; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const ReadOutcome r = src.read(stacks, count);
        const auto t1 = std::chrono::steady_clock::now();
        if (r == ReadOutcome::ProcessEnded) return false;
        if (r != ReadOutcome::Ok) {
            ++f.errors;
            continue;
        }
        handed += count;
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    if (us.empty()) return false;
    std::sort(us.begin(), us.end());
    f.medianUs = us[us.size() / 2];
    f.p90Us = us[us.size() * 9 / 10];
    f.stacksPerRead = double(handed) / double(us.size());
    return true;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int samples = argc > 1 ? std::max(100, std::atoi(argv[1])) : 5000;
    std::printf("all-threads read of a mostly idle 18-thread target, %d reads per mode\n", samples);
    std::printf("%-24s %-13s %9s %9s %14s %7s\n", "interpreter", "mode", "median", "p90",
                "stacks/read", "errors");
    struct Mode {
        const char* name;
        ProfilingMode mode;
        bool probe;
        bool blocking = false;
    };
    const Mode modes[] = {{"wall", ProfilingMode::Wall, false},
                          {"all", ProfilingMode::All, true},
                          {"cpu", ProfilingMode::Cpu, true},
                          {"gil", ProfilingMode::Gil, false},
                          {"wall+blocking", ProfilingMode::Wall, false, true}};
    for (const auto& in : test::findInterpreters()) {
        test::TargetProcess target(in, "mostly_idle.py");
        if (!target.start()) {
            std::printf("%-24s cannot start: %s\n", qPrintable(in.label),
                        qPrintable(target.error()));
            continue;
        }
        for (const Mode& m : modes) {
            ReadOptions o;
            o.allThreads = true;
            o.cpuState = m.probe;
            o.mode = m.mode;
            auto src = openLiveProcess(int(target.pid()), o);
            if (!src) {
                std::printf("%-24s %s\n", qPrintable(in.label), src.error().message.c_str());
                break;
            }
            Figures f;
            remote::BlockingStackSource blocking(**src);
            StackSource& reader = m.blocking ? static_cast<StackSource&>(blocking) : **src;
            if (!measure(reader, m.blocking ? samples / 5 : samples, f)) {
                std::printf("%-24s %-13s no successful reads\n", qPrintable(in.label), m.name);
                continue;
            }
            std::printf("%-24s %-13s %9.2f %9.2f %14.2f %7d\n", qPrintable(in.label), m.name,
                        f.medianUs, f.p90Us, f.stacksPerRead, f.errors);
        }
    }
    return 0;
}
