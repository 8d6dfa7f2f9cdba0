// Prints medians of: LiveTimeline::addBatch per thread-sample (30-frame stacks, 8
// threads, 1 kHz timestamps) and snapshot() of a full timeline (8 threads x 3000
// buckets), the copy the GUI takes five times a second.
#include "core/analysis/parallelism.h"
#include "core/sample/thread_status.h"
#include "core/session/live_timeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace gilscope;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main() {
    FrameRegistry registry;
    std::vector<FrameId> stack;
    for (int i = 0; i < 30; ++i)
        stack.push_back(
            registry.internFrame({registry.internString("app.py"),
                                  registry.internString("f" + std::to_string(i)), i + 1}));
    constexpr int kThreads = 8;
    constexpr int kTicks = 20'000; // 20 s at 1 kHz
    std::vector<double> perSampleNs;
    for (int run = 0; run < 7; ++run) {
        LiveTimeline timeline;
        timeline.begin(registry, RecordingInfo{});
        const auto start = Clock::now();
        for (int tick = 0; tick < kTicks; ++tick) {
            const uint64_t ts = 1'000'000 + uint64_t(tick) * 1000;
            for (int t = 0; t < kThreads; ++t) {
                SampleBatch b;
                b.threadId = uint64_t(100 + t);
                b.status = (tick % kThreads == t) ? ThreadStatus::HasGil | ThreadStatus::OnCpu
                                                  : ThreadStatus::GilRequested;
                b.frames = stack;
                b.timestampsUs = std::span<const uint64_t>(&ts, 1);
                timeline.addBatch(b);
            }
        }
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
        perSampleNs.push_back(ns / (kTicks * kThreads));
    }
    std::printf("addBatch: median %.1f ns per thread-sample (30 frames, %d threads)\n",
                median(perSampleNs), kThreads);

    // Of that, the parallelism tally (issue 49), alone: the timeline's (64 ticks held
    // back) and an export's (4096), samples in time order as a live sampler sends them.
    for (const size_t window : {size_t(64), ParallelismTally::kReorderTicks}) {
        std::vector<double> tallyNs;
        for (int run = 0; run < 7; ++run) {
            ParallelismTally tally(2, true, 1000, window);
            uint64_t ticks = 0;
            tally.setTickSink([&ticks](uint64_t, const TickCounts&) { ++ticks; });
            const auto start = Clock::now();
            for (int tick = 0; tick < kTicks; ++tick)
                for (int t = 0; t < kThreads; ++t)
                    tally.add(1'000'000 + uint64_t(tick) * 1000,
                              uint8_t(ThreadStatus::HasGil | ThreadStatus::OnCpu),
                              ThreadIndex{uint16_t(t)}, StackId{0});
            tally.finish();
            const double ns =
                std::chrono::duration<double, std::nano>(Clock::now() - start).count();
            tallyNs.push_back(ns / (kTicks * kThreads));
        }
        std::printf("  parallelism tally (%zu ticks held back): median %.1f ns per "
                    "thread-sample\n",
                    window, median(tallyNs));
    }

    // A full timeline: 8 threads x 3000 buckets (5 min at 100 ms).
    LiveTimeline full;
    full.begin(registry, RecordingInfo{});
    for (int t = 0; t < kThreads; ++t)
        for (uint64_t i = 0; i < 3000; ++i) {
            const uint64_t ts = i * 100'000;
            SampleBatch b;
            b.threadId = uint64_t(t);
            b.frames = stack;
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            full.addBatch(b);
        }
    std::vector<double> snapshotUs;
    size_t buckets = 0;
    for (int i = 0; i < 51; ++i) {
        const auto start = Clock::now();
        const TimelineSnapshot s = full.snapshot();
        snapshotUs.push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        buckets = s.threads.size() * s.threads[0].buckets.size();
    }
    std::printf("snapshot: median %.1f us for %zu buckets\n", median(snapshotUs), buckets);
    return 0;
}
