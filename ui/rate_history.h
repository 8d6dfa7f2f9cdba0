#pragma once

#include "core/sampler/sampler.h"

#include <cstddef>
#include <deque>
#include <vector>

namespace gilscope::ui {

// One point of the rate chart: the figures of one interval between two polls.
struct RatePoint {
    double timeSec = 0; // end of the interval, seconds since the recording started
    double requestedHz = 0;
    double achievedHz = 0; // ticks attempted per second in the interval
    double missedPct = 0;  // of the ticks the interval should have had
    double errorPct = 0;   // of the ticks attempted
};

// The rate chart's history, bounded however long the recording: the last `recentSec`
// seconds at full resolution; older points are averaged into buckets, and when there
// are more than `maxOld` buckets, neighbours merge and the bucket doubles. A 10-hour
// recording at 5 polls a second keeps at most maxOld + 1 + 5 * recentSec points.
class RateHistory {
public:
    explicit RateHistory(double recentSec = 60, size_t maxOld = 400)
        : recentSec_(recentSec), maxOld_(maxOld) {}

    // Takes the sampler's cumulative figures; the first call only sets the baseline.
    void add(const SamplerStats& stats);
    void addPoint(const RatePoint& p); // a point already computed (tests, replays)
    void clear();

    std::vector<RatePoint> points() const; // oldest first
    size_t size() const { return old_.size() + (pendingCount_ ? 1 : 0) + recent_.size(); }

private:
    void retire(const RatePoint& p); // moves a point out of the recent window
    void mergeOld();

    double recentSec_;
    size_t maxOld_;
    std::deque<RatePoint> recent_;
    std::vector<RatePoint> old_;
    RatePoint pending_; // sums of the bucket being filled
    size_t pendingCount_ = 0;
    double pendingStart_ = 0;
    double bucketSec_ = 1;
    bool haveBaseline_ = false;
    SamplerStats last_;
};

} // namespace gilscope::ui
