#include "core/sample/mode_filter_sink.h"

namespace gilscope {

bool ModeFilterSink::keeps(ProfilingMode mode, uint32_t status) {
    switch (mode) {
    case ProfilingMode::Cpu:
        return (status & ThreadStatus::OnCpu) != 0;
    case ProfilingMode::Gil:
        return (status & ThreadStatus::HasGil) != 0;
    case ProfilingMode::Exception:
        return (status & ThreadStatus::HasException) != 0;
    default:
        return true;
    }
}

void ModeFilterSink::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    RecordingInfo withMode = info;
    withMode.mode = static_cast<int>(mode_);
    next_.begin(registry, withMode);
}

void ModeFilterSink::addBatch(const SampleBatch& batch) {
    if (keeps(mode_, batch.status)) next_.addBatch(batch);
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
