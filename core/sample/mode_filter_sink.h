#pragma once

#include "core/sample/sample_sink.h"
#include "core/sample/thread_status.h"

#include <optional>
#include <string_view>

namespace gilscope {

// CPython's --mode as a filter in front of a sink: cpu keeps only thread samples taken
// on CPU, gil only those holding the GIL, exception only those handling an exception
// (what CPython's unwinder keeps when it skips non-matching threads); wall and all keep
// every sample. begin() tells the sink the mode, which the .bin header records.
class ModeFilterSink final : public SampleSink {
public:
    ModeFilterSink(ProfilingMode mode, SampleSink& next) : mode_(mode), next_(next) {}

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void finish(const RecordingSummary& summary) override { next_.finish(summary); }

private:
    ProfilingMode mode_;
    SampleSink& next_;
};

// "wall", "cpu", "gil", "exception", "all" (CPython's --mode names); nullopt otherwise.
std::optional<ProfilingMode> parseProfilingMode(std::string_view name);

} // namespace gilscope
