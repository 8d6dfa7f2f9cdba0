#include "core/sampler/sampler_stats_publisher.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace gilscope {

static_assert(sizeof(RawSamplerStats) % sizeof(uint64_t) == 0);
static_assert(std::is_trivially_copyable_v<RawSamplerStats>); // published as words

void SamplerStatsPublisher::publish(const RawSamplerStats& s) {
    uint64_t values[kFields];
    std::memcpy(values, &s, sizeof values);
    const uint64_t seq = seq_.load(std::memory_order_relaxed);
    seq_.store(seq + 1, std::memory_order_relaxed); // odd: a write is in progress
    // Release stores instead of a fence (free on x86, and ThreadSanitizer models them):
    // a reader that sees one of these values also sees the odd sequence number.
    for (int i = 0; i < kFields; ++i)
        fields_[i].store(values[i], std::memory_order_release);
    seq_.store(seq + 2, std::memory_order_release);
}

RawSamplerStats SamplerStatsPublisher::read() const {
    uint64_t values[kFields];
    for (;;) {
        const uint64_t before = seq_.load(std::memory_order_acquire);
        if (before & 1u) continue;
        for (int i = 0; i < kFields; ++i)
            values[i] = fields_[i].load(std::memory_order_acquire);
        if (seq_.load(std::memory_order_relaxed) == before) break;
    }
    RawSamplerStats s;
    std::memcpy(&s, values, sizeof values);
    return s;
}

SamplerStats toSamplerStats(const RawSamplerStats& raw, uint64_t intervalUs) {
    SamplerStats s;
    s.requestedRateHz = intervalUs ? 1e6 / static_cast<double>(intervalUs) : 0;
    const uint64_t elapsedUs = raw.lastTickUs > raw.startUs ? raw.lastTickUs - raw.startUs : 0;
    s.elapsedSec = static_cast<double>(elapsedUs) / 1e6;
    if (elapsedUs > 0) s.achievedRateOverall = static_cast<double>(raw.ticks) * 1e6 / elapsedUs;
    if (raw.windowSpanUs > 0)
        s.achievedRateLastSecond = static_cast<double>(raw.windowTicks) * 1e6 / raw.windowSpanUs;
    if (raw.intervals > 0) {
        s.minIntervalUs = static_cast<double>(raw.minIntervalUs);
        s.maxIntervalUs = static_cast<double>(raw.maxIntervalUs);
        s.meanIntervalUs = static_cast<double>(raw.sumIntervalUs) / raw.intervals;
    }
    s.okTicks = raw.okTicks;
    s.threadSamples = raw.threadSamples;
    s.errors = raw.errors;
    s.missed = raw.missed;
    s.paused = raw.paused;
    if (raw.ticks > 0) s.errorPct = 100.0 * raw.errors / raw.ticks;
    if (raw.ticks + raw.missed > 0) s.missedPct = 100.0 * raw.missed / (raw.ticks + raw.missed);
    s.samplerCpuSec = static_cast<double>(raw.cpuUs) / 1e6;
    s.torn = raw.torn;
    s.waits = raw.waits;
    s.running = raw.running != 0;
    return s;
}

RecordingSummary toRecordingSummary(const RawSamplerStats& raw) {
    const SamplerStats s = toSamplerStats(raw, 0);
    RecordingSummary r;
    r.durationSec = s.elapsedSec;
    r.sampleRate = s.achievedRateOverall;
    r.errorRatePct = s.errorPct;
    r.missedPct = s.missedPct;
    r.ticks = raw.ticks;
    r.threadSamples = raw.threadSamples;
    r.torn = raw.torn;
    r.waits = raw.waits;
    r.hasErrorRate = true;
    r.hasMissed = true;
    return r;
}

void RateWindow::add(uint64_t sinceStartUs) {
    const uint64_t bucket = sinceStartUs / kBucketUs;
    if (bucket != current_) {
        // Empty every bucket we moved past (at most all ten).
        const uint64_t steps = std::min<uint64_t>(bucket - current_, kBuckets);
        for (uint64_t i = 1; i <= steps; ++i) {
            uint64_t& b = buckets_[(current_ + i) % kBuckets];
            sum_ -= b;
            b = 0;
        }
        current_ = bucket;
    }
    ++buckets_[bucket % kBuckets];
    ++sum_;
}

uint64_t RateWindow::spanUs(uint64_t sinceStartUs) const {
    const uint64_t oldestBucketStart =
        current_ >= kBuckets - 1 ? (current_ - (kBuckets - 1)) * kBucketUs : 0;
    return sinceStartUs > oldestBucketStart ? sinceStartUs - oldestBucketStart : 0;
}

} // namespace gilscope
