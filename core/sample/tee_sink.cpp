#include "core/sample/tee_sink.h"

namespace gilscope {

void TeeSink::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    for (auto* s : sinks_)
        s->begin(registry, info);
}

void TeeSink::addBatch(const SampleBatch& batch) {
    for (auto* s : sinks_)
        s->addBatch(batch);
}

void TeeSink::addSkipped(const SampleBatch& batch) {
    for (auto* s : sinks_)
        s->addSkipped(batch);
}

void TeeSink::nameThread(uint64_t threadId, const std::string& name) {
    for (auto* s : sinks_)
        s->nameThread(threadId, name);
}

void TeeSink::addMarker(uint64_t timestampUs, const std::string& text) {
    for (auto* s : sinks_)
        s->addMarker(timestampUs, text);
}

void TeeSink::addCounters(const ProcessCounters& reading) {
    for (SampleSink* s : sinks_)
        s->addCounters(reading);
}

void TeeSink::finish(const RecordingSummary& summary) {
    for (auto* s : sinks_)
        s->finish(summary);
}

bool TeeSink::failed() const {
    for (auto* s : sinks_)
        if (s->failed()) return true;
    return false;
}

Error TeeSink::sinkError() const {
    for (auto* s : sinks_)
        if (s->failed()) return s->sinkError();
    return {};
}

} // namespace gilscope
