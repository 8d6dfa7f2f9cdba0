#pragma once

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/util/atomic_file.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope {

// Collapsed ("folded") stacks, the text flamegraph.pl and speedscope read: one line
// per unique stack, frames root-to-leaf as `func (file:line)` joined by ';', then a
// space and the number of samples. Stacks of all threads are merged. Lines are
// sorted by count (highest first), then by text, so output is deterministic.
// Characters that would break the format (';', CR, LF) in names become ',' / ' '.
class CollapsedWriter : public SampleSink {
public:
    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;

    // Writes the file whole or not at all (AtomicFile).
    Status writeTo(const std::filesystem::path& path);
    // The same into a file made earlier (the CLI makes it before sampling starts).
    Status writeTo(AtomicFile file);

    // The text writeTo() would write.
    std::string render() const;
    uint64_t totalSamples() const { return total_; }
    size_t uniqueStacks() const { return counts_.size(); }

private:
    struct StackHash {
        size_t operator()(const std::vector<FrameId>& v) const noexcept;
    };
    const FrameRegistry* registry_ = nullptr;
    std::unordered_map<std::vector<FrameId>, uint64_t, StackHash> counts_;
    std::vector<FrameId> scratch_; // reused lookup key: no allocation per sample
    // Each thread's last stack and its count: a thread in a loop gives the same stack tick
    // after tick, found by comparing it rather than by hashing it (map nodes stay put).
    struct LastStack {
        std::vector<FrameId> frames;
        uint64_t* count = nullptr;
    };
    std::unordered_map<uint64_t, LastStack> lastStacks_;
    uint64_t total_ = 0;
};

} // namespace gilscope
