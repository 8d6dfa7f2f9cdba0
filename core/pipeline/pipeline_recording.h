#pragma once

#include "core/common/error.h"
#include "core/pipeline/stack_pipeline.h"
#include "core/sample/tee_sink.h"
#include "core/sampler/recording.h"

#include <memory>
#include <vector>

namespace gilscope {

// One recording as every front end makes it: the command line's attach and run, the
// window's Record and Launch, the agent's recording of each process. The readers
// (StackPipeline) feed one sampler, whose samples go to the caller's sinks in the order
// given; Recording owns its life. Built, not started: the caller attaches what needs the
// recording (a control socket) and then starts it.
//
// The sinks belong to the caller and must outlive this; declare them before it.
class PipelineRecording {
public:
    // `pipeline` as StackPipeline's open() or over() made it: its failure (no such
    // process, perf events refused) is the build's, so a front end has one Status to show.
    static Result<std::unique_ptr<PipelineRecording>> build(Result<StackPipeline> pipeline,
                                                            const std::vector<SampleSink*>& sinks,
                                                            const SamplerOptions& options);

    ~PipelineRecording(); // stops and joins the sampler before the readers go

    StackSource& reader() const { return pipeline_.reader(); }
    const StackPipeline& pipeline() const { return pipeline_; }
    Recording& recording() { return *recording_; }
    const Recording& recording() const { return *recording_; }

private:
    explicit PipelineRecording(StackPipeline pipeline) : pipeline_(std::move(pipeline)) {}

    StackPipeline pipeline_; // first: it goes last
    TeeSink sinks_;
    std::unique_ptr<Recording> recording_;
};

} // namespace gilscope
