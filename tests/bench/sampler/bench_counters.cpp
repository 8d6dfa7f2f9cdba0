// What the process's counters cost (issue 38: "sampled about every 10-100 ms off the
// sampler's hot path"). On tests/targets/eight_threads.py under one interpreter, 10 kHz,
// all threads: recordings with counters off and on (every 20 ms) alternate, and the
// medians print side by side: the sampler thread's CPU per tick, the achieved rate, the
// CPU of gilscope's whole process per second of recording (the poller's thread included),
// and what one reading costs on the poller's thread (three syscalls on open files).
//
//   bench_counters [seconds per run = 3] [runs per side = 4]
//
// Measured 2026-12-05 on the 2-core VM (load 1-2), 3.15.2, medians of 4 alternating runs:
//   sampler CPU per tick 46.90 us off / 46.43 us on; achieved 8619 / 8846 Hz; gilscope's
//   whole CPU 40.68 % / 41.19 %; 152 readings per 3 s run, one reading 7.2 us of CPU:
//   50 readings a second cost 0.36 ms of CPU a second (1/2800 of a core), below the noise.
#include "core/counters/proc_counters.h"
#include "core/remote/live_stack_source.h"
#include "core/sampler/recording.h"
#include "tests/support/python_interpreters.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <sys/resource.h>
#include <thread>
#include <vector>

using namespace gilscope;

namespace {

struct CountingSink final : SampleSink {
    uint64_t batches = 0, readings = 0;
    void addBatch(const SampleBatch&) override { ++batches; }
    void addCounters(const ProcessCounters&) override { ++readings; }
};

struct Run {
    double cpuUsPerTick = 0, achieved = 0, processCpuPerSec = 0;
    uint64_t readings = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double processCpuSec() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

Run measure(StackSource& source, double seconds, uint32_t countersEveryMs) {
    CountingSink sink;
    SamplerOptions o;
    o.intervalUs = 100; // 10 kHz
    o.durationSec = seconds;
    o.read.allThreads = true;
    o.countersEveryMs = countersEveryMs;
    const double cpu0 = processCpuSec();
    Recording recording(source, sink, o);
    recording.start();
    while (recording.running()) // until the duration ends it
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    recording.finish();
    const double cpu = processCpuSec() - cpu0;
    const SamplerStats st = recording.stats();
    const double ticks = double(st.okTicks + st.errors);
    return {ticks > 0 ? 1e6 * st.samplerCpuSec / ticks : 0, st.achievedRateOverall,
            st.elapsedSec > 0 ? cpu / st.elapsedSec : 0, sink.readings};
}

double threadCpuUs() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e6 + double(t.tv_nsec) / 1e3;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const double seconds = argc > 1 ? std::max(0.5, std::atof(argv[1])) : 3.0;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 4;
    const auto interpreters = test::findInterpreters();
    if (interpreters.isEmpty()) {
        std::printf("no Python interpreter found\n");
        return 1;
    }
    const test::Interpreter& in = interpreters.back();
    test::TargetProcess target(in, "eight_threads.py");
    if (!target.start()) {
        std::printf("cannot start: %s\n", qPrintable(target.error()));
        return 1;
    }
    ReadOptions read;
    read.allThreads = true;
    auto source = openLiveProcess(int(target.pid()), read);
    if (!source) {
        std::printf("%s\n", source.error().message.c_str());
        return 1;
    }
    std::vector<double> tickOff, tickOn, rateOff, rateOn, procOff, procOn;
    uint64_t readings = 0;
    for (int r = 0; r < runs; ++r) {
        const bool offFirst = r % 2 == 0; // neither side always runs second
        const Run first = measure(**source, seconds, offFirst ? 0 : kCountersEveryMs);
        const Run second = measure(**source, seconds, offFirst ? kCountersEveryMs : 0);
        const Run& off = offFirst ? first : second;
        const Run& on = offFirst ? second : first;
        tickOff.push_back(off.cpuUsPerTick);
        tickOn.push_back(on.cpuUsPerTick);
        rateOff.push_back(off.achieved);
        rateOn.push_back(on.achieved);
        procOff.push_back(off.processCpuPerSec * 100);
        procOn.push_back(on.processCpuPerSec * 100);
        readings += on.readings;
    }
    auto door = target::AttachedProcess::open(int(target.pid()));
    auto reader = door ? ProcCounterReader::open(*door) : std::nullopt;
    std::vector<double> readUs;
    for (int i = 0; i < 2000 && reader; ++i) {
        const double c0 = threadCpuUs();
        (void)reader->read();
        readUs.push_back(threadCpuUs() - c0);
    }
    std::printf("%s, eight_threads.py, 10 kHz, all threads; %.1f s per run, median of %d runs "
                "per side, alternating\n",
                qPrintable(in.label), seconds, runs);
    std::printf("%-30s %12s %12s\n", "", "counters off", "counters on");
    std::printf("%-30s %9.2f us %9.2f us\n", "sampler CPU per tick", median(tickOff),
                median(tickOn));
    std::printf("%-30s %9.0f Hz %9.0f Hz\n", "achieved rate", median(rateOff), median(rateOn));
    std::printf("%-30s %10.2f %% %10.2f %%\n", "gilscope CPU (all threads)", median(procOff),
                median(procOn));
    std::printf("readings per run: %.0f; one reading: %.1f us CPU (median of %zu)\n",
                double(readings) / runs, median(readUs), readUs.size());
    return 0;
}
