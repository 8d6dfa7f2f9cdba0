#include "core/analysis/state_filter_sink.h"

#include "core/sample/thread_status.h"

#include <algorithm>

namespace gilscope {

StateFilterSink::StateFilterSink(StateFilter state, SampleSink& next,
                                 const std::vector<uint64_t>* contendedTimes)
    : state_(state), next_(next), contended_(contendedTimes) {
}

void StateFilterSink::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    registry_ = &registry;
    next_.begin(registry, info);
}

// The reader marks garbage collection with a synthetic "<GC>" frame, as ProfileModel sees it.
bool StateFilterSink::hasGcFrame(const SampleBatch& batch) {
    if (!registry_) return false;
    for (FrameId id : batch.frames) {
        if (!registry_->has(id)) continue;
        int8_t& cached = gcFrame_.cover(id, -1);
        if (cached < 0) cached = registry_->string(registry_->frame(id).funcname) == "<GC>";
        if (cached == 1) return true;
    }
    return false;
}

void StateFilterSink::addBatch(const SampleBatch& batch) {
    if (!statusPasses(state_, batch.status)) return;
    if (state_ == StateFilter::Gc && !hasGcFrame(batch)) return;
    if (!isContention(state_)) return next_.addBatch(batch);
    if (!contended_) return;
    kept_.clear();
    for (uint64_t t : batch.timestampsUs)
        if (std::binary_search(contended_->begin(), contended_->end(), t)) kept_.push_back(t);
    if (kept_.empty()) return;
    SampleBatch held = batch;
    held.timestampsUs = kept_;
    next_.addBatch(held);
}

void ContendedTimesSink::addBatch(const SampleBatch& batch) {
    if (contentionWaits(state_, batch.status))
        times_.insert(times_.end(), batch.timestampsUs.begin(), batch.timestampsUs.end());
}

std::vector<uint64_t> ContendedTimesSink::takeTimes() {
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    return std::move(times_);
}

} // namespace gilscope
