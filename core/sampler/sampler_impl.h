#pragma once

// The sampler's state, shared by its public face (sampler.cpp) and its tick
// (sampler_tick.cpp). Nothing outside core/sampler includes it.
#include "core/sampler/producer_errands.h"
#include "core/sampler/sampler.h"
#include "core/sampler/sampler_stats_publisher.h"
#include "core/sampler/tick_waiter.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gilscope {

struct Sampler::Impl {
    StackSource& source;
    SampleSink& sink;
    SamplerOptions options;
    SamplerClock& clock;

    std::thread thread;
    std::atomic<bool> stopRequested{false};
    std::atomic<bool> enabled{true};
    ProducerErrands errands;      // marks and errands from other threads, run on the sampler's
    bool pausedSinceTick = false; // the next tick's interval spans a pause: not counted
    std::atomic<bool> isRunning{false};
    bool started = false;
    bool finished = false;
    StopReason reason = StopReason::NotStopped;
    SamplerStatsPublisher publisher;
    RawSamplerStats finalStats;      // written by the thread, read after join
    mutable std::mutex failureMutex; // only touched when a sink throws, never per tick
    std::string failure;
    std::string endReason; // the source's word on why the target ended; read after join
    ErrorKind failureKind = ErrorKind::Internal;

    Impl(StackSource& src, SampleSink& snk, SamplerOptions opts, SamplerClock& clk)
        : source(src), sink(snk), options(std::move(opts)), clock(clk) {
        if (options.intervalUs == 0) options.intervalUs = 1;
    }

    TickWaiter waiter{clock};

    bool sleepUntil(uint64_t deadline) { return waiter.waitUntil(deadline, stopRequested); }

    // The recording's state between ticks (the sampler thread's, or its group's).
    RawSamplerStats s;
    RateWindow window;
    std::vector<ThreadStack> stacks;
    std::vector<ThreadName> names; // the source's renames, handed to the sink
    uint64_t namesAskedAt = 0;     // okTicks at the last look for them
    uint64_t endUs = 0, next = 0, prevTick = 0, nextCpuRefresh = 0;
    std::mutex endMutex; // a group's sampler: wait() sleeps until the group ended it
    std::condition_variable endCv;
    bool ended = false;

    void run(uint64_t startUs);
    void begin(uint64_t startUs);
    uint64_t deadline() const { return std::min(next, endUs); }
    // At or after deadline(): the duration's end, or one tick. False once ended.
    bool step();
    void stopNow(); // a stop request seen: ends now
    void end();
    void handOnNames(); // the source's thread names that changed, to the sink
    void recordInterval(RawSamplerStats& s, uint64_t prevTick, uint64_t t);
    size_t emit(uint64_t t, const std::vector<ThreadStack>& stacks, size_t count);
};

} // namespace gilscope
