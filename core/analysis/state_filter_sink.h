#pragma once

#include "core/analysis/profile_filter.h"
#include "core/sample/sample_sink.h"

#include <vector>

namespace gilscope {

// Keeps only the thread-samples of one state in front of a sink, as the analysis views
// count them (ProfileModel): by status bits, by a <GC> frame on the stack, or, for
// GilContention, the GIL holder's samples at the times some thread waited for it
// (which a first pass collects with ContendedTimesSink). Used to export what the GUI's
// state filter shows.
class StateFilterSink final : public SampleSink {
public:
    // contendedTimes (sorted) is needed for the contention views only, and must outlive
    // the sink.
    StateFilterSink(StateFilter state, SampleSink& next,
                    const std::vector<uint64_t>* contendedTimes = nullptr);

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void nameThread(uint64_t threadId, const std::string& name) override {
        next_.nameThread(threadId, name); // a thread keeps its name whatever is kept of it
    }
    void addCounters(const ProcessCounters& reading) override { next_.addCounters(reading); }
    void finish(const RecordingSummary& summary) override { next_.finish(summary); }
    bool failed() const override { return next_.failed(); }
    Error sinkError() const override { return next_.sinkError(); }

private:
    bool hasGcFrame(const SampleBatch& batch);

    StateFilter state_;
    SampleSink& next_;
    const std::vector<uint64_t>* contended_;
    const FrameRegistry* registry_ = nullptr;
    IdVector<FrameId, int8_t> gcFrame_; // -1 unknown, 0 no, 1 yes
    std::vector<uint64_t> kept_;        // GilContention: the timestamps of a batch that stay
};

// The first pass for a contention view: the times at which some thread waited (for the
// GIL, or on a lock).
class ContendedTimesSink final : public SampleSink {
public:
    explicit ContendedTimesSink(StateFilter state) : state_(state) {}
    void addBatch(const SampleBatch& batch) override;
    // Sorted and unique; call after the replay.
    std::vector<uint64_t> takeTimes();

private:
    StateFilter state_;
    std::vector<uint64_t> times_;
};

} // namespace gilscope
