#include "core/analysis/counters_json.h"

namespace gilscope {

nlohmann::ordered_json countersJson(const CounterSeries& counters, uint64_t originUs,
                                    uint64_t fromUs, uint64_t toUs) {
    const auto span = counters.span(fromUs, toUs);
    if (!span) return nullptr;
    nlohmann::ordered_json j;
    j["readings"] = span->readings;
    j["rss_bytes"] = {{"min", span->rssMin},
                      {"max", span->rssMax},
                      {"first", span->rssFirst},
                      {"last", span->rssLast},
                      {"delta", span->rssDelta()}};
    j["threads"] = {{"min", span->threadsMin}, {"max", span->threadsMax}};
    j["cpu_seconds"] = double(span->cpuNs) / 1e9;
    j["cpu_cores"] = span->cores();
    // The interpreter's GC counts over the range (null where gilscope cannot read them).
    if (span->gcKnown)
        j["gc"] = {{"collections", span->gcCollections}, {"collected", span->gcCollected}};
    else
        j["gc"] = nullptr;
    // Built apart: an ordered_json's members move as members are added.
    auto time = nlohmann::ordered_json::array(), rss = time, threads = time, cpu = time, gc = time;
    for (const ProcessCounters& r : counters.readings()) {
        if (r.timeUs < fromUs || r.timeUs > toUs) continue;
        const int64_t rel = int64_t(r.timeUs) - int64_t(originUs);
        time.push_back(double(rel) / 1e6);
        rss.push_back(r.rssBytes);
        threads.push_back(r.threads);
        cpu.push_back(r.cpuNs);
        // Running totals per generation, as gc.get_stats() gives them.
        if (r.gcKnown)
            gc.push_back(r.gcCollections);
        else
            gc.push_back(nullptr);
    }
    j["series"] = {{"time_s", std::move(time)},
                   {"rss_bytes", std::move(rss)},
                   {"threads", std::move(threads)},
                   {"cpu_ns", std::move(cpu)}};
    if (span->gcKnown) j["series"]["gc_collections"] = std::move(gc);
    return j;
}

} // namespace gilscope
