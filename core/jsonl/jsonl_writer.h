#pragma once

// CPython's JSONL output (profiling.sampling.jsonl_collector, schema v0): one meta
// record, string and frame tables, per-frame self/cumulative counts and an end record,
// in chunks of 256 entries, written as Python's json.dumps(separators=(",", ":")) writes
// them (ASCII only, \uXXXX escapes), so the lines equal CPython's but for the run_id.

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/util/atomic_file.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::jsonl {

class JsonlWriter final : public SampleSink {
public:
    // mode: the ProfilingMode named in the meta record; nullopt leaves "mode" out (CPython's
    // replay of a .bin whose mode is unknown). runId: empty for a random UUID4.
    explicit JsonlWriter(std::optional<int> mode, std::string runId = {});

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;

    // The whole file, through AtomicFile.
    Status writeTo(const std::filesystem::path& path) const;
    Status writeTo(AtomicFile file) const; // an output made before the recording
    std::string text() const;

private:
    struct Frame {
        uint32_t path = 0, func = 0;
        int64_t line = 0, endLine = 0, col = -1, endCol = -1;
        uint64_t self = 0, cumulative = 0, seen = 0;
    };
    uint32_t intern(StringId registryString);
    size_t frameFor(FrameId id);

    std::optional<int> mode_;
    std::string runId_;
    uint64_t intervalUs_ = 1000;
    const FrameRegistry* registry_ = nullptr;
    std::vector<StringId> strings_;                   // our id → registry string id
    std::unordered_map<StringId, uint32_t> stringOf_; // registry string id → our id
    std::vector<Frame> frames_;
    std::unordered_map<std::string, size_t> frameKeys_; // CPython's frame_key
    IdVector<FrameId, size_t> frameOf_;                 // frames_ index + 1
    uint64_t samplesTotal_ = 0, stackNo_ = 0;
};

// Python's json.dumps() of a str with ensure_ascii (the quotes included).
std::string pythonJsonString(const std::string& utf8);

} // namespace gilscope::jsonl
