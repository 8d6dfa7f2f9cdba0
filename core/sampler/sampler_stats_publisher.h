#pragma once

// Internal to the sampler: publishes its running figures for readers on other
// threads through a seqlock. The sampler thread only stores (never waits); a reader
// retries if it raced a publish, so neither side takes a lock.

#include "core/sampler/sampler.h"

#include <atomic>
#include <cstdint>

namespace gilscope {

// Raw counters, written by the sampler thread only.
struct RawSamplerStats {
    uint64_t startUs = 0;
    uint64_t lastTickUs = 0; // time of the latest tick (or of the stop)
    uint64_t ticks = 0;      // attempted reads
    uint64_t okTicks = 0;    // successful reads
    uint64_t threadSamples = 0;
    uint64_t errors = 0;
    uint64_t missed = 0;
    uint64_t paused = 0; // ticks not taken while sampling was off
    uint64_t minIntervalUs = 0;
    uint64_t maxIntervalUs = 0;
    uint64_t sumIntervalUs = 0;
    uint64_t intervals = 0;
    uint64_t windowTicks = 0;  // ticks in the last second
    uint64_t windowSpanUs = 0; // time the window covers (< 1 s at the start)
    uint64_t cpuUs = 0;        // sampler thread CPU time
    TornReads torn;            // the source's counts after the latest tick (four words)
    WaitTally waits;           // the same for wait reasons (two words)
    uint64_t running = 0;
};

class SamplerStatsPublisher {
public:
    void publish(const RawSamplerStats& s);
    RawSamplerStats read() const;

private:
    static constexpr int kFields = sizeof(RawSamplerStats) / sizeof(uint64_t);
    std::atomic<uint64_t> seq_{0};
    std::atomic<uint64_t> fields_[kFields] = {};
};

// Turns raw counters into the figures the API promises.
SamplerStats toSamplerStats(const RawSamplerStats& raw, uint64_t intervalUs);
RecordingSummary toRecordingSummary(const RawSamplerStats& raw);

// Counts ticks in ten 100 ms buckets, for "achieved rate over the last second".
class RateWindow {
public:
    void add(uint64_t sinceStartUs);
    uint64_t ticks() const { return sum_; }
    uint64_t spanUs(uint64_t sinceStartUs) const;

private:
    static constexpr uint64_t kBucketUs = 100000;
    static constexpr int kBuckets = 10;
    uint64_t buckets_[kBuckets] = {};
    uint64_t current_ = 0; // absolute bucket number of the newest bucket
    uint64_t sum_ = 0;
};

} // namespace gilscope
