#pragma once

#include "core/gecko/gecko_collector_impl.h"
#include "core/gecko/json_writer.h"
#include "core/gecko/opcode_names.h"

namespace gilscope {

// Writes the processed profile token by token (cpython-profiling.md §2.1–§2.4, §3):
// in-memory tables directly, spilled columns streamed back from disk. Every array's
// item count is checked against its table's length.
class ProfileStreamer {
public:
    ProfileStreamer(GeckoCollector::Impl& impl, JsonWriter& out, const ProgressCallback& progress,
                    const CancelToken* cancel, std::string pid, std::string abi,
                    std::string platform, int cpus);

    Status run();

private:
    Status meta();
    void libs(JsonWriter& out);
    Status thread(GeckoThread& th);
    Status samples(GeckoThread& th);
    Status tables(GeckoThread& th, JsonObject& thread);
    Status markers(GeckoThread& th);
    Status markerData(GeckoThread& th, JsonObject& markers);
    Status stringArray(JsonObject& shared);

    // The one cancellation check; it also stops at the first output error and reports
    // progress. Called every 4096 items.
    Status poll();
    // After each array item: poll() every 4096 items. counted items (strings and
    // spilled values) are what total_ sums, for progress.
    Status itemDone(bool counted);
    Status checkCount(uint64_t count, uint64_t expected, const char* label);
    // Opcode names from the target version's table.
    OpcodeInfo opcodeInfo(uint32_t opcode) const;
    std::string formatOpcode(uint32_t opcode) const;

    // Arrays, each a member `name` of `parent`: a column streamed back from disk, one
    // from memory (its item count checked against the table's length), and one that
    // repeats a single value `count` times.
    template <typename T, typename Fn>
    Status spilled(JsonObject& parent, const char* name, const SpillColumn& column,
                   uint64_t expected, Fn&& write);
    template <typename Vec, typename Fn>
    Status column(JsonObject& parent, const char* name, const Vec& values, uint64_t expected,
                  Fn&& write);
    Status repeated(JsonObject& parent, const char* name, uint64_t count, std::string_view value);

    GeckoCollector::Impl& impl_;
    JsonWriter& out_;
    const ProgressCallback& progress_;
    const CancelToken* cancel_;
    std::string pid_, abi_, platform_;
    int cpus_;
    uint64_t items_ = 0;            // every array item, for the poll
    uint64_t done_ = 0, total_ = 0; // counted items, for progress
};

} // namespace gilscope
