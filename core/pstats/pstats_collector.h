#pragma once

// CPython's pstats output (profiling.sampling.pstats_collector): per (file, line,
// function) the samples where it was the leaf ("direct"), the samples where it was on
// the stack ("cumulative"), and who called it. With -o it is a marshal file that the
// target's own Python's pstats.Stats(path) loads (3.8 and later; 3.15's sampled marker
// only for a 3.15 target); without, a text table on stdout.

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/util/atomic_file.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::pstats {

// CPython's --sort choices (SORT_MODE_*); Name is "name" (-1, sorts by str(key)).
enum class Sort { Name, NSamples, TotTime, CumTime, SamplePct, CumulPct, NSamplesCumul };

struct TableOptions {
    Sort sort = Sort::NSamples;
    long limit = 15; // a Python slice bound: negative drops from the end
    bool summary = true;
    bool cpuMode = false; // adds CPython's hint when nothing was collected
    bool color = false;
};

// "nsamples", "tottime", ... → Sort; false for an unknown name.
bool parseSort(const std::string& name, Sort& out);
// Python's _colorize.can_colorize(file=stdout) for the given fd.
bool canColorize(int fd);

class PstatsCollector final : public SampleSink {
public:
    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;

    // The marshal file CPython's export() writes, through AtomicFile.
    Status writeTo(const std::filesystem::path& path) const;
    Status writeTo(AtomicFile file) const; // an output made before the recording
    // print_stats(): the table, legend and summary.
    void printTable(std::FILE* out, const TableOptions& options) const;

    struct Key {
        std::string file;
        int64_t line = 0;
        std::string func;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const noexcept;
    };
    struct Entry {
        Key key;
        uint64_t direct = 0, cumulative = 0;
        std::vector<std::pair<size_t, uint64_t>> callers; // (entry index, count), first-seen order
    };
    // create_stats() order: first time each location was seen.
    const std::vector<Entry>& entries() const { return entries_; }
    double intervalSec() const { return static_cast<double>(intervalUs_) / 1e6; }

private:
    size_t indexOf(FrameId frame);

    const FrameRegistry* registry_ = nullptr;
    uint64_t intervalUs_ = 1000;
    bool sampledMarker_ = false; // the target is 3.15+: its pstats reads the marker
    std::vector<Entry> entries_;
    std::unordered_map<Key, size_t, KeyHash> index_;
    IdVector<FrameId, size_t> frameIndex_; // entries_ index + 1 (0: not yet)
    std::vector<size_t> seen_;             // per-stack scratch
    std::vector<uint64_t> seenMark_;
    uint64_t stackNo_ = 0;
};

} // namespace gilscope::pstats
