#pragma once

#include "core/common/error.h"
#include "core/gecko/gecko_collector.h"
#include "core/sample/frame_registry.h"
#include "core/sample/sample_sink.h"
#include "tests/support/synthetic_feed.h"

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
