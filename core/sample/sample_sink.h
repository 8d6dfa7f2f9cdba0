#pragma once

#include "core/common/error.h"
#include "core/sample/sample.h"

namespace gilscope {

// The one interface every consumer of samples implements: Gecko collector, .bin
// writer, collapsed writer, the GUI's live model. Producers (sampler, replay) call
// begin() once, addBatch() for each batch on the producing thread, then finish().
// The registry outlives the sink's use of it and only grows.
class SampleSink {
public:
    virtual ~SampleSink() = default;

    virtual void begin(const FrameRegistry& registry, const RecordingInfo& info) {
        (void)registry;
        (void)info;
    }
    virtual void addBatch(const SampleBatch& batch) = 0;
    // Called once after the last batch, with the sampler's figures when it had any.
    virtual void finish(const RecordingSummary& summary) { (void)summary; }
};

} // namespace gilscope
