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

void writeCounter(JsonWriter& out, const CounterColumn& col, const CounterSeries& counters,
                  uint64_t baseUs, const std::string& pid, uint32_t mainThreadIndex) {
    const auto& readings = counters.readings();
    JsonObject c(out);
    c.key("name").string(col.name);
    c.key("category").string(col.category);
    c.key("description").string(col.description);
    c.key("pid").string(pid);
    c.key("mainThreadIndex").unsignedInteger(mainThreadIndex);
    JsonObject samples(c.key("samples"));
    {
        JsonArray time(samples.key("time"));
        // A reading just before the first sample sits at the profile's start.
        for (const ProcessCounters& r : readings)
            time.item().number(r.timeUs > baseUs ? double(r.timeUs - baseUs) / 1000.0 : 0.0);
    }
    {
        JsonArray count(samples.key("count"));
        int64_t previous = 0;
        for (const ProcessCounters& r : readings) {
            const auto v = col.value(r);
            const int64_t now = v ? int64_t(*v) : previous;
            count.item().integer(now - previous);
            previous = now;
        }
    }
    samples.key("length").unsignedInteger(readings.size());
}

std::optional<uint64_t> gcCount(const ProcessCounters& r, size_t generation) {
    if (!r.gcKnown) return std::nullopt;
    return r.gcCollections[generation];
}

} // namespace

void writeGeckoCounters(JsonWriter& out, const CounterSeries& counters, uint64_t baseUs,
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
    for (const CounterColumn& col : kColumns)
        writeCounter(array.item(), col, counters, baseUs, pid, mainThreadIndex);
    const auto& r = counters.readings();
    if (std::any_of(r.begin(), r.end(), [](const ProcessCounters& c) { return c.gcKnown; }))
        for (const CounterColumn& col : kGcColumns)
            writeCounter(array.item(), col, counters, baseUs, pid, mainThreadIndex);
}

} // namespace gilscope
