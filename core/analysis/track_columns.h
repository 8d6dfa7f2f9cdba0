#pragma once

#include "core/sample/track_state.h"

#include <array>
#include <cstdint>
#include <vector>

namespace gilscope {

// One pixel column of one thread's track: how much of its time the thread spent in each
// TrackState (the states partition it: they stack to the whole), and how much of that
// time it was also on a CPU, handling an exception, or in GC. A sample lasts until the
// thread's next one, at most two intervals, so a column narrower than a sample shows it,
// and one wider weighs each sample by its time.
struct TrackColumn {
    std::array<uint32_t, kTrackStateCount> state{}; // µs (or samples, from a timeline's buckets)
    uint32_t onCpu = 0, exception = 0, gc = 0;
    uint64_t total() const {
        uint64_t t = 0;
        for (uint32_t v : state)
            t += v;
        return t;
    }
};

// The tracks of [startUs, endUs) (the model's clock, absolute µs) at `columns` pixels.
struct TrackColumnsRequest {
    uint64_t startUs = 0, endUs = 0;
    int columns = 0;
    bool operator==(const TrackColumnsRequest&) const = default;
};

struct ThreadColumns {
    uint64_t threadId = 0;
    std::vector<TrackColumn> columns;
};

struct TrackColumns {
    TrackColumnsRequest request;
    uint64_t samples = 0; // model samples when computed (a live recording grows)
    std::vector<ThreadColumns> threads;
};

} // namespace gilscope
