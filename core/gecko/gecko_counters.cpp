#include "core/gecko/gecko_counters.h"

#include <algorithm>
#include <functional>
#include <optional>

namespace gilscope {

namespace {

struct CounterColumn {
    const char* name;
    const char* category;
    const char* description;
    // nullopt: not known at this reading (the total stands, a delta of 0).
    std::function<std::optional<uint64_t>(const ProcessCounters&)> value;
};

// One counter: `n` samples, the i-th at timeUs(i) (the samples' clock) with the running
// value valueAt(i) (nullopt: not known then, the total stands). Gecko wants each count as
// the change since the previous sample, so the first is the value itself.
void writeCounterSeries(JsonWriter& out, const char* name, const char* category,
                        const char* description, const std::string& pid, uint32_t mainThreadIndex,
                        uint64_t baseUs, size_t n, const std::function<uint64_t(size_t)>& timeUs,
                        const std::function<std::optional<int64_t>(size_t)>& valueAt) {
    JsonObject c(out);
    c.key("name").string(name);
    c.key("category").string(category);
    c.key("description").string(description);
    c.key("pid").string(pid);
    c.key("mainThreadIndex").unsignedInteger(mainThreadIndex);
    JsonObject samples(c.key("samples"));
    {
        JsonArray time(samples.key("time"));
        // A reading just before the first sample sits at the profile's start.
        for (size_t i = 0; i < n; ++i)
            time.item().number(timeUs(i) > baseUs ? double(timeUs(i) - baseUs) / 1000.0 : 0.0);
    }
    {
        JsonArray count(samples.key("count"));
        int64_t previous = 0;
        for (size_t i = 0; i < n; ++i) {
            const int64_t now = valueAt(i).value_or(previous);
            count.item().integer(now - previous);
            previous = now;
        }
    }
    samples.key("length").unsignedInteger(n);
}

void writeCounter(JsonWriter& out, const CounterColumn& col, const CounterSeries& counters,
                  uint64_t baseUs, const std::string& pid, uint32_t mainThreadIndex) {
    const auto& readings = counters.readings();
    writeCounterSeries(
        out, col.name, col.category, col.description, pid, mainThreadIndex, baseUs, readings.size(),
        [&](size_t i) { return readings[i].timeUs; },
        [&](size_t i) -> std::optional<int64_t> {
            const auto v = col.value(readings[i]);
            return v ? std::optional<int64_t>(int64_t(*v)) : std::nullopt;
        });
}

std::optional<uint64_t> gcCount(const ProcessCounters& r, size_t generation) {
    if (!r.gcKnown) return std::nullopt;
    return r.gcCollections[generation];
}

void writeParallel(JsonWriter& out, const std::vector<ParallelWindow>& windows, uint64_t baseUs,
                   const std::string& pid, uint32_t mainThreadIndex) {
    writeCounterSeries(
        out, "Python threads at once", "CPU",
        "How many threads ran Python at once (held the GIL, or attached on a free-threaded "
        "build, on a CPU), in thousandths, averaged over each window",
        pid, mainThreadIndex, baseUs, windows.size(), [&](size_t i) { return windows[i].startUs; },
        [&](size_t i) -> std::optional<int64_t> {
            const ParallelBucket& b = windows[i].counts;
            return b.ticks ? int64_t(1000 * uint64_t(b.running) / b.ticks) : 0;
        });
}

} // namespace

void ParallelWindows::add(uint64_t timeUs, const TickCounts& counts) {
    const uint64_t start = timeUs / windowUs_ * windowUs_;
    if (windows_.empty() || windows_.back().startUs < start) {
        if (windows_.size() >= kMaxWindows) {
            // Twice as wide: merge neighbours that now share a window.
            windowUs_ *= 2;
            std::vector<ParallelWindow> merged;
            for (const ParallelWindow& w : windows_) {
                const uint64_t at = w.startUs / windowUs_ * windowUs_;
                if (merged.empty() || merged.back().startUs != at) merged.push_back({at, {}});
                merged.back().counts.merge(w.counts);
            }
            windows_ = std::move(merged);
            return add(timeUs, counts);
        }
        windows_.push_back({start, {}});
    }
    // Ticks come counted in time order; one late by a window joins the latest.
    windows_.back().counts.add(counts);
}

void writeGeckoCounters(JsonWriter& out, const CounterSeries& counters,
                        const std::vector<ParallelWindow>& parallel, uint64_t baseUs,
                        const std::string& pid, uint32_t mainThreadIndex) {
    static const CounterColumn kColumns[] = {
        {"Memory", "Memory", "Resident memory (RSS) of the target process, in bytes",
         [](const ProcessCounters& r) { return r.rssBytes; }},
        {"Threads", "Threads", "Threads of the target process (Python or not)",
         [](const ProcessCounters& r) { return uint64_t(r.threads); }},
        {"CPU time", "CPU", "CPU time of all the target's threads, in nanoseconds",
         [](const ProcessCounters& r) { return r.cpuNs; }},
    };
    // The interpreter's own GC counts, where gilscope could read them: one counter per
    // generation, so a full collection (generation 2) stands apart.
    static const CounterColumn kGcColumns[] = {
        {"GC collections (generation 0)", "GC / CC",
         "Collections of the youngest generation (gc.get_stats()[0]['collections'])",
         [](const ProcessCounters& r) { return gcCount(r, 0); }},
        {"GC collections (generation 1)", "GC / CC",
         "Collections of generation 1 (gc.get_stats()[1]['collections'])",
         [](const ProcessCounters& r) { return gcCount(r, 1); }},
        {"GC collections (generation 2)", "GC / CC",
         "Full collections (gc.get_stats()[2]['collections'])",
         [](const ProcessCounters& r) { return gcCount(r, 2); }},
    };
    JsonArray array(out);
    if (!counters.empty()) {
        for (const CounterColumn& col : kColumns)
            writeCounter(array.item(), col, counters, baseUs, pid, mainThreadIndex);
        const auto& r = counters.readings();
        if (std::any_of(r.begin(), r.end(), [](const ProcessCounters& c) { return c.gcKnown; }))
            for (const CounterColumn& col : kGcColumns)
                writeCounter(array.item(), col, counters, baseUs, pid, mainThreadIndex);
    }
    if (!parallel.empty()) writeParallel(array.item(), parallel, baseUs, pid, mainThreadIndex);
}

} // namespace gilscope
