#pragma once

#include "core/common/error.h"
#include "core/gecko/gecko_collector.h"
#include "core/sample/frame_registry.h"
#include "core/sample/sample_sink.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gilscope::test {

// One collect() call of a fixture's X.replay.jsonl, interned into a registry.
struct ReplayCall {
    uint64_t threadId = 0;
    uint32_t interpreterId = 0;
    uint32_t status = 0;
    std::vector<FrameId> frames; // leaf first
    std::vector<uint64_t> timestampsUs;
};

// Parses X.replay.jsonl (lines with "frames"; not the hashed medium variant).
Result<std::vector<ReplayCall>> loadReplay(const std::filesystem::path& jsonl,
                                           FrameRegistry& registry);

// begin(), one addBatch per call, finish().
void feed(SampleSink& sink, const FrameRegistry& registry, const std::vector<ReplayCall>& calls,
          uint64_t intervalUs = 1000);

// The machine-dependent fields pinned as the fixtures README says.
GeckoOptions pinnedOptions();

std::string readFile(const std::filesystem::path& path);
nlohmann::json readJson(const std::filesystem::path& path);

// Runs ../shared/tools/check-gecko on a file; returns its output, ok=true on exit 0.
struct CheckResult {
    bool ok = false;
    std::string output;
};
CheckResult checkGecko(const std::filesystem::path& path);

// Directory entries (names), sorted.
std::vector<std::string> listDir(const std::filesystem::path& dir);

} // namespace gilscope::test

namespace gilscope::test {

// Builds synthetic batches against one registry, for hand-written scenarios.
class SyntheticFeed {
public:
    explicit SyntheticFeed(SampleSink& sink, uint64_t intervalUs = 1000) : sink_(sink) {
        RecordingInfo info;
        info.sampleIntervalUs = intervalUs;
        sink_.begin(registry_, info);
    }
    FrameId frame(const std::string& file, int line, const std::string& func,
                  uint8_t opcode = kNoOpcode) {
        FrameInfo f;
        f.filename = registry_.internString(file);
        f.funcname = registry_.internString(func);
        f.line = f.endLine = line;
        f.opcode = opcode;
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

// Exports to a fresh temporary directory, checks the file with check-gecko, parses it.
struct Exported {
    Status status;
    nlohmann::json profile;
    std::string checkOutput;
    bool checkOk = false;
};
Exported exportAndCheck(GeckoCollector& collector);

// Every column of a table has the table's length.
bool columnsMatchLength(const nlohmann::json& table, std::string* why);

} // namespace gilscope::test
