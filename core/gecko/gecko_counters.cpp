#include "core/gecko/gecko_counters.h"

#include <functional>

namespace gilscope {

namespace {

struct CounterColumn {
    const char* name;
    const char* category;
    const char* description;
    std::function<uint64_t(const ProcessCounters&)> value;
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
            const auto v = int64_t(col.value(r));
            count.item().integer(v - previous);
            previous = v;
        }
    }
    samples.key("length").unsignedInteger(readings.size());
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
    JsonArray array(out);
    for (const CounterColumn& col : kColumns)
        writeCounter(array.item(), col, counters, baseUs, pid, mainThreadIndex);
}

} // namespace gilscope
