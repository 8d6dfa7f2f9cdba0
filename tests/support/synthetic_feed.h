#pragma once

#include "core/sample/frame_registry.h"
#include "core/sample/sample_sink.h"

#include <string>
#include <vector>

namespace gilscope::test {

// Builds synthetic batches against one registry and feeds them to a sink (begin() at
// construction), for hand-written scenarios.
class SyntheticFeed {
public:
    explicit SyntheticFeed(SampleSink& sink, uint64_t intervalUs = 1000) : sink_(sink) {
        RecordingInfo info;
        info.sampleIntervalUs = intervalUs;
        sink_.begin(registry_, info);
    }
    SyntheticFeed(SampleSink& sink, const RecordingInfo& info) : sink_(sink) {
        sink_.begin(registry_, info);
    }
    FrameId frame(const std::string& file, int line, const std::string& func,
                  uint8_t opcode = kNoOpcode, int firstLine = kNoLocation) {
        FrameInfo f;
        f.filename = registry_.internString(file);
        f.funcname = registry_.internString(func);
        f.line = f.endLine = line;
        f.opcode = opcode;
        f.firstLine = firstLine;
        return registry_.internFrame(f);
    }
    // --native-stacks' frame of a C function: its library's path, no line.
    FrameId nativeFrame(const std::string& library, const std::string& func) {
        FrameInfo f;
        f.filename = registry_.internString(library);
        f.funcname = registry_.internString(func);
        f.native = true;
        return registry_.internFrame(f);
    }
    void add(uint64_t tid, uint32_t status, std::vector<FrameId> frames,
             std::vector<uint64_t> timestampsUs) {
        SampleBatch b;
        b.threadId = tid;
        b.status = status;
        b.frames = frames;
        b.timestampsUs = timestampsUs;
        sink_.addBatch(b);
    }
    FrameRegistry& registry() { return registry_; }

private:
    SampleSink& sink_;
    FrameRegistry registry_;
};

} // namespace gilscope::test
