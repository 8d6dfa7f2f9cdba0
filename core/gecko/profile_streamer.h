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
    Status thread(GeckoThread& th);
    Status samples(GeckoThread& th);
    Status tables(GeckoThread& th);
    Status markers(GeckoThread& th);
    Status markerData(GeckoThread& th);
    Status stringArray();

    // Counts one streamed item; checks cancellation and reports progress now and then.
    Status tick();
    Status checkCount(uint64_t count, uint64_t expected, const char* label);
    // Opcode names from the target version's table.
    OpcodeInfo opcodeInfo(uint32_t opcode) const;
    std::string formatOpcode(uint32_t opcode) const;

    template <typename T, typename Fn>
    Status spilled(const SpillColumn& column, uint64_t expected, const char* label, Fn&& write);
    template <typename Vec, typename Fn>
    Status column(const char* name, const Vec& values, uint64_t expected, Fn&& write,
                  bool first = false);

    GeckoCollector::Impl& impl_;
    JsonWriter& out_;
    const ProgressCallback& progress_;
    const CancelToken* cancel_;
    std::string pid_, abi_, platform_;
    int cpus_;
    uint64_t done_ = 0, total_ = 0;
};

} // namespace gilscope
