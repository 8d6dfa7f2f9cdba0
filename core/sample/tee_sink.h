#pragma once

#include "core/sample/sample_sink.h"

#include <vector>

namespace gilscope {

// Fans one sample stream out to several sinks, in order.
class TeeSink final : public SampleSink {
public:
    void add(SampleSink* sink) { sinks_.push_back(sink); }
    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void addSkipped(const SampleBatch& batch) override;
    void nameThread(uint64_t threadId, const std::string& name) override;
    void addMarker(uint64_t timestampUs, const std::string& text) override;
    void addCounters(const ProcessCounters& reading) override;
    void finish(const RecordingSummary& summary) override;
    bool failed() const override;
    Error sinkError() const override;

private:
    std::vector<SampleSink*> sinks_;
};

} // namespace gilscope
