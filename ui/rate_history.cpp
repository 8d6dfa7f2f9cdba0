#include "ui/rate_history.h"

#include <algorithm>

namespace gilscope::ui {

void RateHistory::clear() {
    recent_.clear();
    old_.clear();
    pending_ = {};
    pendingCount_ = 0;
    bucketSec_ = 1;
    haveBaseline_ = false;
    last_ = {};
}

void RateHistory::add(const SamplerStats& s) {
    if (!haveBaseline_) {
        haveBaseline_ = true;
        last_ = s;
        return;
    }
    const double dt = s.elapsedSec - last_.elapsedSec;
    if (dt <= 0) return;
    // Per interval, from the counters (the sampler's own percentages are whole-recording).
    const double samples = double(s.okTicks - std::min(s.okTicks, last_.okTicks));
    const double errors = double(s.errors - std::min(s.errors, last_.errors));
    const double missed = double(s.missed - std::min(s.missed, last_.missed));
    const double attempted = samples + errors;
    RatePoint p;
    p.timeSec = s.elapsedSec;
    p.requestedHz = s.requestedRateHz;
    p.achievedHz = attempted / dt;
    p.missedPct = attempted + missed > 0 ? 100.0 * missed / (attempted + missed) : 0;
    p.errorPct = attempted > 0 ? 100.0 * errors / attempted : 0;
    last_ = s;
    addPoint(p);
}

void RateHistory::addPoint(const RatePoint& p) {
    recent_.push_back(p);
    while (!recent_.empty() && recent_.front().timeSec < p.timeSec - recentSec_) {
        retire(recent_.front());
        recent_.pop_front();
    }
}

void RateHistory::retire(const RatePoint& p) {
    if (pendingCount_ == 0) pendingStart_ = p.timeSec;
    pending_.timeSec = p.timeSec;
    pending_.requestedHz += p.requestedHz;
    pending_.achievedHz += p.achievedHz;
    pending_.missedPct += p.missedPct;
    pending_.errorPct += p.errorPct;
    ++pendingCount_;
    if (p.timeSec - pendingStart_ < bucketSec_) return;
    const double n = double(pendingCount_);
    old_.push_back({pending_.timeSec, pending_.requestedHz / n, pending_.achievedHz / n,
                    pending_.missedPct / n, pending_.errorPct / n});
    pending_ = {};
    pendingCount_ = 0;
    if (old_.size() > maxOld_) mergeOld();
}

void RateHistory::mergeOld() {
    std::vector<RatePoint> merged;
    merged.reserve(old_.size() / 2 + 1);
    for (size_t i = 0; i + 1 < old_.size(); i += 2) {
        const RatePoint& a = old_[i];
        const RatePoint& b = old_[i + 1];
        merged.push_back({b.timeSec, (a.requestedHz + b.requestedHz) / 2,
                          (a.achievedHz + b.achievedHz) / 2, (a.missedPct + b.missedPct) / 2,
                          (a.errorPct + b.errorPct) / 2});
    }
    if (old_.size() % 2) merged.push_back(old_.back());
    old_ = std::move(merged);
    bucketSec_ *= 2;
}

std::vector<RatePoint> RateHistory::points() const {
    std::vector<RatePoint> out(old_.begin(), old_.end());
    if (pendingCount_) {
        const double n = double(pendingCount_);
        out.push_back({pending_.timeSec, pending_.requestedHz / n, pending_.achievedHz / n,
                       pending_.missedPct / n, pending_.errorPct / n});
    }
    out.insert(out.end(), recent_.begin(), recent_.end());
    return out;
}

} // namespace gilscope::ui
