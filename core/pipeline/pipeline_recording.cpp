#include "core/pipeline/pipeline_recording.h"

namespace gilscope {

Result<std::unique_ptr<PipelineRecording>>
PipelineRecording::build(Result<StackPipeline> pipeline, const std::vector<SampleSink*>& sinks,
                         const SamplerOptions& options) {
    if (!pipeline) return pipeline.error();
    if (sinks.empty())
        return makeError(ErrorKind::Internal, "a recording needs somewhere to put its samples");
    std::unique_ptr<PipelineRecording> built(new PipelineRecording(std::move(*pipeline)));
    for (SampleSink* sink : sinks)
        built->sinks_.add(sink);
    built->recording_ = std::make_unique<Recording>(built->reader(), built->sinks_, options);
    return built;
}

PipelineRecording::~PipelineRecording() {
    recording_.reset(); // the sampler reads pipeline_ and feeds sinks_: it stops first
}

} // namespace gilscope
