#pragma once

#include "core/analysis/analysis_ids.h"
#include "core/common/error.h"
#include "core/util/cancel.h"
#include "core/util/temp_dir.h"
#include "core/util/unique_fd.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gilscope {

// One thread-sample, 12 bytes: 10M samples are 120 MB, so they live on disk.
struct SampleRecord {
    StackId node;        // leaf node in the StackInterner's tree
    uint32_t timeLo = 0; // µs since the model's origin, 40 bits (12 days)
    uint8_t timeHi = 0;
    uint8_t status = 0; // ThreadStatus bits
    ThreadIndex thread; // index into the model's thread table

    uint64_t time() const { return (static_cast<uint64_t>(timeHi) << 32) | timeLo; }
    void setTime(uint64_t t) {
        t = std::min<uint64_t>(t, (uint64_t{1} << 40) - 1);
        timeLo = static_cast<uint32_t>(t);
        timeHi = static_cast<uint8_t>(t >> 32);
    }
};
static_assert(sizeof(SampleRecord) == 12);

// Per-sample columns for time-range and GIL-contention queries: appended in memory and
// written to a file in a private temp dir ("gilscope-analysis-<pid>-*") one block at a
// time, so memory stays at one block plus 24 bytes per block (its time bounds). When
// spilling fails, records stay in memory up to a bound; later ones are dropped and
// counted (the model's per-stack counts stay exact: only time ranges and GIL
// contention then see the samples kept).
// Not thread-safe: the owner serializes append() and view(); a View is then read
// without the owner's lock (the file only grows, and the View copied the rest).
class SampleStore {
public:
    static constexpr size_t kBlockRecords = 65536;
    // Records kept in memory when spilling fails: 96 MiB.
    static constexpr uint64_t kMemoryLimitRecords = 128 * kBlockRecords;

    explicit SampleStore(uint64_t memoryLimitRecords = kMemoryLimitRecords)
        : memoryLimit_(memoryLimitRecords) {}
    SampleStore(const SampleStore&) = delete;
    SampleStore& operator=(const SampleStore&) = delete;

    void append(const SampleRecord& r);
    // Records kept (on disk and in memory).
    uint64_t size() const { return flushed_ + memoryOnly_.size() + tail_.size(); }
    // Records dropped because spilling failed and memory reached its bound.
    uint64_t dropped() const { return dropped_; }
    // Why samples stay in memory instead of on disk (temp dir or write failed), and what
    // was dropped; empty when spilling works.
    std::string spillProblem() const;

    struct Block {
        uint64_t minTime = UINT64_MAX, maxTime = 0;
    };
    // A consistent copy of what a query needs: flushed blocks are read from the file,
    // the rest was copied.
    struct View {
        std::shared_ptr<const UniqueFd> file;
        std::vector<Block> blocks;        // flushed blocks, each kBlockRecords records
        std::vector<SampleRecord> memory; // unflushed records (and all when not spilling)
        // Calls fn for each chunk of records that may hold times in [t0, t1].
        Status scan(uint64_t t0, uint64_t t1,
                    const std::function<void(std::span<const SampleRecord>)>& fn,
                    const CancelToken* cancel = nullptr) const;
    };
    View view() const;

private:
    void flush();

    TempDir dir_;
    std::shared_ptr<UniqueFd> file_;
    bool spillFailed_ = false;
    std::string spillProblem_;
    std::vector<Block> blocks_;
    Block tailBlock_;
    uint64_t flushed_ = 0;
    std::vector<SampleRecord> tail_;
    std::vector<SampleRecord> memoryOnly_; // when spilling is impossible
    uint64_t memoryLimit_;
    uint64_t dropped_ = 0;
};

} // namespace gilscope
