#include "core/pprof/counter_comments.h"

#include <cstdio>

namespace gilscope::pprof {

namespace {

template <typename Value>
std::string series(const char* name, const std::vector<ProcessCounters>& readings, Value value) {
    std::string line = std::string("gilscope counter ") + name + " (ms:value):";
    const size_t n = readings.size();
    const size_t points = std::min(n, kMaxCommentPoints);
    const uint64_t t0 = readings.front().timeUs;
    for (size_t k = 0; k < points; ++k) {
        // Evenly spread, the last reading always among them.
        const size_t i = points == 1 ? n - 1 : k * (n - 1) / (points - 1);
        const ProcessCounters& r = readings[i];
        line += ' ' + std::to_string((r.timeUs - t0) / 1000) + ':' + std::to_string(value(r));
    }
    return line;
}

} // namespace

std::vector<std::string> counterComments(const CounterSeries& counters) {
    const auto whole = counters.whole();
    if (!whole) return {};
    char summary[320];
    std::snprintf(summary, sizeof summary,
                  "gilscope process counters: rss_bytes min=%llu max=%llu first=%llu last=%llu;"
                  " threads min=%u max=%u; cpu_seconds=%.3f cores=%.2f",
                  static_cast<unsigned long long>(whole->rssMin),
                  static_cast<unsigned long long>(whole->rssMax),
                  static_cast<unsigned long long>(whole->rssFirst),
                  static_cast<unsigned long long>(whole->rssLast), whole->threadsMin,
                  whole->threadsMax, double(whole->cpuNs) / 1e9, whole->cores());
    const auto& r = counters.readings();
    std::vector<std::string> lines{summary};
    if (whole->gcKnown) {
        char gc[200];
        std::snprintf(gc, sizeof gc,
                      "gilscope gc collections: gen0=%llu gen1=%llu gen2=%llu collected=%llu",
                      static_cast<unsigned long long>(whole->gcCollections[0]),
                      static_cast<unsigned long long>(whole->gcCollections[1]),
                      static_cast<unsigned long long>(whole->gcCollections[2]),
                      static_cast<unsigned long long>(whole->gcCollected));
        lines.push_back(gc);
    }
    lines.push_back(series("rss_bytes", r, [](const ProcessCounters& c) { return c.rssBytes; }));
    lines.push_back(series("threads", r, [](const ProcessCounters& c) { return c.threads; }));
    lines.push_back(series("cpu_ns", r, [](const ProcessCounters& c) { return c.cpuNs; }));
    return lines;
}

} // namespace gilscope::pprof
