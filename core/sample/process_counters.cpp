#include "core/sample/process_counters.h"

#include <algorithm>

namespace gilscope {

void CounterSeries::add(const ProcessCounters& reading) {
    // Out of order (a clock step): keep the series sorted, as every reader assumes.
    if (!readings_.empty() && reading.timeUs < readings_.back().timeUs) return;
    const bool keep = seen_++ % keepEvery_ == 0;
    if (!keep) {
        readings_.back() = reading; // the latest stands in for the ones skipped
        return;
    }
    if (readings_.size() >= kMaxReadings) {
        size_t out = 0;
        for (size_t i = 0; i < readings_.size(); i += 2)
            readings_[out++] = readings_[i];
        readings_.resize(out);
        keepEvery_ *= 2;
    }
    readings_.push_back(reading);
}

std::optional<CounterSpan> CounterSeries::span(uint64_t fromUs, uint64_t toUs) const {
    const auto byTime = [](const ProcessCounters& r, uint64_t t) { return r.timeUs < t; };
    auto first = std::lower_bound(readings_.begin(), readings_.end(), fromUs, byTime);
    if (first == readings_.end() || first->timeUs > toUs) return std::nullopt;
    CounterSpan s;
    s.rssMin = s.rssMax = s.rssFirst = first->rssBytes;
    s.threadsMin = s.threadsMax = first->threads;
    const ProcessCounters* last = &*first;
    const ProcessCounters *gcFirst = nullptr, *gcLast = nullptr;
    for (auto it = first; it != readings_.end() && it->timeUs <= toUs; ++it) {
        if (it->gcKnown) {
            if (!gcFirst) gcFirst = &*it;
            gcLast = &*it;
        }
        ++s.readings;
        s.rssMin = std::min(s.rssMin, it->rssBytes);
        s.rssMax = std::max(s.rssMax, it->rssBytes);
        s.threadsMin = std::min(s.threadsMin, it->threads);
        s.threadsMax = std::max(s.threadsMax, it->threads);
        last = &*it;
    }
    s.rssLast = last->rssBytes;
    s.cpuNs = last->cpuNs >= first->cpuNs ? last->cpuNs - first->cpuNs : 0;
    s.elapsedUs = last->timeUs - first->timeUs;
    if (gcFirst) {
        // Running totals; one that went back (a hostile or restarted count) adds nothing.
        const auto since = [](uint64_t later, uint64_t earlier) {
            return later >= earlier ? later - earlier : 0;
        };
        s.gcKnown = true;
        for (size_t g = 0; g < kGcGenerations; ++g)
            s.gcCollections[g] = since(gcLast->gcCollections[g], gcFirst->gcCollections[g]);
        s.gcCollected = since(gcLast->gcCollected, gcFirst->gcCollected);
    }
    return s;
}

const ProcessCounters* CounterSeries::at(uint64_t timeUs) const {
    if (readings_.empty()) return nullptr;
    const auto byTime = [](uint64_t t, const ProcessCounters& r) { return t < r.timeUs; };
    auto it = std::upper_bound(readings_.begin(), readings_.end(), timeUs, byTime);
    return it == readings_.begin() ? &readings_.front() : &*(it - 1);
}

} // namespace gilscope
