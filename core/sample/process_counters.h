#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gilscope {

// CPython's GC generations, as gc.get_stats() lists them (3.8-3.15).
inline constexpr size_t kGcGenerations = 3;

// One reading of the target process as a whole (core/counters reads it from /proc about
// every 20 ms, off the sampler's thread): what the stacks ran beside.
struct ProcessCounters {
    uint64_t timeUs = 0;   // in the samples' clock
    uint64_t rssBytes = 0; // resident memory
    uint32_t threads = 0;  // every thread of the process, Python or not
    uint64_t cpuNs = 0;    // CPU time of all its threads so far (a running total)
    // The interpreter's own GC counts, as gc.get_stats() gives them (running totals), read
    // from its memory where gilscope locates them (CounterProbe); gcKnown false elsewhere.
    bool gcKnown = false;
    std::array<uint64_t, kGcGenerations> gcCollections{}; // per generation
    uint64_t gcCollected = 0; // objects the collections freed, all generations
    bool operator==(const ProcessCounters&) const = default;
};

// Adds to a reading what only the interpreter knows (its GC counts). A source that can
// locate them makes one (StackSource::counterProbe); the counters' poller calls it on its
// own thread, never the sampler's.
class CounterProbe {
public:
    virtual ~CounterProbe() = default;
    // Fills the interpreter's fields of `reading`, or leaves gcKnown false.
    virtual void fill(ProcessCounters& reading) = 0;
};

// What a time range of readings says: the memory and thread extremes, and the CPU used.
struct CounterSpan {
    size_t readings = 0;
    uint64_t rssMin = 0, rssMax = 0, rssFirst = 0, rssLast = 0;
    uint32_t threadsMin = 0, threadsMax = 0;
    uint64_t cpuNs = 0;     // CPU time used from the first reading to the last
    uint64_t elapsedUs = 0; // first to last reading
    // The GC collections from the first reading the interpreter's counts were known at to
    // the last (gcKnown false: none was).
    bool gcKnown = false;
    std::array<uint64_t, kGcGenerations> gcCollections{};
    uint64_t gcCollected = 0;
    // CPU use over the span in cores (1.0 = one core busy throughout); 0 for one reading.
    double cores() const { return elapsedUs ? double(cpuNs) / (double(elapsedUs) * 1e3) : 0; }
    int64_t rssDelta() const { return int64_t(rssLast) - int64_t(rssFirst); }
};

// A recording's readings in time order, bounded: past kMaxReadings every other reading
// is dropped (the period doubles), so an hour costs what a few minutes do. The latest
// reading is always kept.
class CounterSeries {
public:
    static constexpr size_t kMaxReadings = 16384;

    void add(const ProcessCounters& reading);
    const std::vector<ProcessCounters>& readings() const { return readings_; }
    bool empty() const { return readings_.empty(); }
    size_t size() const { return readings_.size(); }
    // The readings in [fromUs, toUs]; nullopt when none falls there.
    std::optional<CounterSpan> span(uint64_t fromUs, uint64_t toUs) const;
    std::optional<CounterSpan> whole() const { return span(0, UINT64_MAX); }
    // The reading nearest at or before timeUs (else the first), or null when empty.
    const ProcessCounters* at(uint64_t timeUs) const;

private:
    std::vector<ProcessCounters> readings_;
    uint64_t keepEvery_ = 1; // after thinning: keep one reading in this many
    uint64_t seen_ = 0;
};

} // namespace gilscope
