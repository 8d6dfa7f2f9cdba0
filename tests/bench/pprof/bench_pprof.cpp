// Prints medians of: 10M thread-samples (8 threads, 256 distinct 30-frame stacks drawn
// from 400 functions, GIL/CPU states varying, one timestamp per batch as the live
// sampler sends) fed to PprofSink and written as a gzip'd pprof file, in samples/s; and
// that file's size against the same samples as collapsed text (CollapsedWriter).
#include "core/collapsed/collapsed_writer.h"
#include "core/pprof/pprof_sink.h"
#include "core/sample/thread_status.h"
#include "core/util/atomic_file.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <vector>

using namespace gilscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kSamples = 10'000'000;
constexpr int kThreads = 8;
constexpr int kStacks = 256;
constexpr int kDepth = 30;

// This thread's CPU time: on a shared machine the wall clock also counts other jobs.
double cpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Workload {
    FrameRegistry registry;
    std::vector<std::vector<FrameId>> stacks;
    std::vector<uint32_t> pick; // per sample: stack index (a fixed pseudo-random sequence)

    Workload() {
        std::mt19937 rng(42);
        std::vector<FrameId> frames;
        for (int f = 0; f < 400; ++f)
            frames.push_back(registry.internFrame(
                {registry.internString("/srv/app/module" + std::to_string(f % 40) + ".py"),
                 registry.internString("function_" + std::to_string(f)), 10 + f % 97}));
        for (int s = 0; s < kStacks; ++s) {
            std::vector<FrameId> stack;
            for (int d = 0; d < kDepth; ++d)
                stack.push_back(frames[rng() % frames.size()]);
            stacks.push_back(std::move(stack));
        }
        pick.resize(1 << 16);
        for (uint32_t& p : pick)
            p = rng() % kStacks;
    }

    template <class Sink>
    void feed(Sink& sink) {
        RecordingInfo info;
        info.sampleIntervalUs = 1000;
        info.startTimeUs = 1'000'000;
        sink.begin(registry, info);
        for (uint64_t i = 0; i < kSamples; ++i) {
            const uint64_t ts = 1'000'000 + i / kThreads * 1000;
            const int thread = static_cast<int>(i % kThreads);
            SampleBatch b;
            b.threadId = uint64_t(100 + thread);
            b.status = (i / kThreads) % kThreads == uint64_t(thread)
                           ? ThreadStatus::HasGil | ThreadStatus::OnCpu
                           : ThreadStatus::GilRequested;
            b.frames = stacks[pick[i & 0xffff]];
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            sink.addBatch(b);
        }
    }
};

} // namespace

int main() {
    Workload work;
    const auto dir = std::filesystem::temp_directory_path();
    const auto pprofPath = dir / ("bench_pprof_" + std::to_string(::getpid()) + ".pb.gz");
    const auto collapsedPath = dir / ("bench_pprof_" + std::to_string(::getpid()) + ".txt");
    std::vector<double> rates, cpuRates, writeMs;
    for (int run = 0; run < 5; ++run) {
        pprof::PprofSink sink;
        const double cpuStart = cpuSeconds();
        const auto start = Clock::now();
        work.feed(sink);
        const auto fed = Clock::now();
        auto file = AtomicFile::create(pprofPath);
        if (!file || !pprof::writePprof(sink.take(false), std::move(file.value()))) {
            std::fprintf(stderr, "cannot write %s\n", pprofPath.c_str());
            return 1;
        }
        const auto end = Clock::now();
        cpuRates.push_back(kSamples / (cpuSeconds() - cpuStart));
        rates.push_back(kSamples / std::chrono::duration<double>(end - start).count());
        writeMs.push_back(std::chrono::duration<double, std::milli>(end - fed).count());
    }
    CollapsedWriter collapsed;
    work.feed(collapsed);
    if (!collapsed.writeTo(collapsedPath)) return 1;
    const auto pprofSize = std::filesystem::file_size(pprofPath);
    const auto collapsedSize = std::filesystem::file_size(collapsedPath);
    std::printf("pprof: median %.2fM samples/s by the wall clock, %.2fM per CPU second, for "
                "%lluM thread-samples (%d threads, %d stacks of %d frames); encode+gzip+write "
                "%.1f ms\n",
                median(rates) / 1e6, median(cpuRates) / 1e6,
                static_cast<unsigned long long>(kSamples / 1'000'000), kThreads, kStacks, kDepth,
                median(writeMs));
    std::printf("size: pprof .pb.gz %llu bytes, collapsed text %llu bytes (%.1f%% of it)\n",
                static_cast<unsigned long long>(pprofSize),
                static_cast<unsigned long long>(collapsedSize), 100.0 * pprofSize / collapsedSize);
    std::filesystem::remove(pprofPath);
    std::filesystem::remove(collapsedPath);
    return 0;
}
