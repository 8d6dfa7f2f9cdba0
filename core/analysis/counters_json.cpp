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
    // Built apart: an ordered_json's members move as members are added.
    auto time = nlohmann::ordered_json::array(), rss = time, threads = time, cpu = time;
    for (const ProcessCounters& r : counters.readings()) {
        if (r.timeUs < fromUs || r.timeUs > toUs) continue;
        const int64_t rel = int64_t(r.timeUs) - int64_t(originUs);
        time.push_back(double(rel) / 1e6);
        rss.push_back(r.rssBytes);
        threads.push_back(r.threads);
        cpu.push_back(r.cpuNs);
    }
    j["series"] = {{"time_s", std::move(time)},
                   {"rss_bytes", std::move(rss)},
                   {"threads", std::move(threads)},
                   {"cpu_ns", std::move(cpu)}};
    return j;
}

} // namespace gilscope
