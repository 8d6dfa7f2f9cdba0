#pragma once

#include "core/sample/sample_sink.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gilscope::test {

// Records every batch in the shape of the fixtures' X.replay.jsonl lines, so a replay
// can be compared call by call with CPython's reader.
class TraceSink : public SampleSink {
public:
    // hashed: frames become depth / leaf / frames_sha256_16 (medium.replay.jsonl's shape).
    explicit TraceSink(bool hashed = false) : hashed_(hashed) {}

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override {
        registry_ = &registry;
        info_ = info;
        stacks_.clear(); // frame ids are the registry's
        frames_.clear();
        ++begins;
    }
    void addBatch(const SampleBatch& batch) override;
    void finish(const RecordingSummary& summary) override {
        this->summary = summary;
        ++finishes;
    }

    std::vector<nlohmann::json> calls;
    uint64_t samples = 0;
    int begins = 0, finishes = 0;
    RecordingSummary summary;
    const RecordingInfo& info() const { return info_; }

private:
    struct StackJson {
        nlohmann::json frames; // or, hashed:
        std::string sha256_16;
        nlohmann::json leaf;
    };
    bool hashed_;
    std::map<std::vector<FrameId>, StackJson> stacks_;
    struct FrameJson {
        nlohmann::json json;
        std::string text; // compact, as Python's json.dumps(separators=(",", ":"))
    };
    std::map<FrameId, FrameJson> frames_;
    const FrameRegistry* registry_ = nullptr;
    RecordingInfo info_;
};

// [filename, [line, endLine, column, endColumn] | null, funcname, opcode | null]
nlohmann::json frameJson(const FrameRegistry& registry, FrameId id);

// First 16 hex digits of SHA-256 over Python's json.dumps(frames, separators=(",",":")).
std::string framesSha256_16(const nlohmann::json& frames);

std::vector<nlohmann::json> readJsonLines(const std::filesystem::path& path);
nlohmann::json readJson(const std::filesystem::path& path);

} // namespace gilscope::test
