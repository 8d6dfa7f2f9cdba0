#include "core/sample/mode_filter_sink.h"

namespace gilscope {

void ModeFilterSink::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    RecordingInfo withMode = info;
    withMode.mode = static_cast<int>(mode_);
    next_.begin(registry, withMode);
}

void ModeFilterSink::addBatch(const SampleBatch& batch) {
    if (threadMatchesMode(mode_, batch.status)) next_.addBatch(batch);
}

std::optional<ProfilingMode> parseProfilingMode(std::string_view name) {
    if (name == "wall") return ProfilingMode::Wall;
    if (name == "cpu") return ProfilingMode::Cpu;
    if (name == "gil") return ProfilingMode::Gil;
    if (name == "exception") return ProfilingMode::Exception;
    if (name == "all") return ProfilingMode::All;
    return std::nullopt;
}

} // namespace gilscope
