#pragma once

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/tach/tach_info.h"
#include "core/util/atomic_file.h"

#include <array>
#include <filesystem>
#include <memory>
#include <optional>

namespace gilscope {

enum class TachCompression { None = 0, Zstd = 1 };

struct TachWriterOptions {
    TachCompression compression = TachCompression::Zstd; // CLI "auto" and "zstd"
    // Header fields normally come from begin()'s RecordingInfo; these override them.
    std::optional<uint64_t> sampleIntervalUs;
    std::optional<uint64_t> startTimeUs;
    std::optional<int> mode;            // ProfilingMode, -1 unknown
    std::optional<int> captureFeatures; // CaptureFeature bits, -1 unknown
    // Python version stamped in the header; when RecordingInfo has none (0.0.0) the
    // writer stamps 3.15.0, the format's CPython version, so CPython accepts the file.
    std::optional<std::array<uint8_t, 3>> pythonVersion;
};

// A SampleSink that writes a CPython 3.15 Tachyon `.bin` file with CPython's writer
// algorithm (interning order, encoding choice, deferred per-thread run-length records
// with 16 KiB buffers, 256-frame cap, zstd level 5, TACHSTAT block, finalize order), so
// CPython's `python -m profiling.sampling replay` accepts it.
//
// Output goes through AtomicFile: the destination appears only after finalize()
// succeeds; a failed or abandoned writer leaves no partial file. Memory is bounded by
// the number of distinct strings/frames/threads plus fixed buffers.
//
// Usage: begin(registry, info); addBatch()...; finish(summary); finalize().
// addBatch() cannot return an error, so the first I/O error is kept and returned by
// finalize() (and failed(), sinkError()); later batches are ignored.
// finish(summary) records the TACHSTAT figures; the block is written when the summary
// has any figure (durationSec, sampleRate, or an error/missed rate) set.
class TachWriter final : public SampleSink {
public:
    static Result<std::unique_ptr<TachWriter>> create(const std::filesystem::path& destination,
                                                      TachWriterOptions options = {});
    // Into a file made earlier with AtomicFileOptions::needsSeek.
    static Result<std::unique_ptr<TachWriter>> create(AtomicFile file,
                                                      TachWriterOptions options = {});
    ~TachWriter() override;

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void finish(const RecordingSummary& summary) override;
    // Kept for the side file finalize() writes beside a regular file (thread_names_file.h).
    void nameThread(uint64_t threadId, const std::string& name) override;
    // Kept for the side file too (at most kMaxSideMarkers, each cut to kMaxMarkerText).
    void addMarker(uint64_t timestampUs, const std::string& text) override;
    // And the process's counters (thinned as CounterSeries does).
    void addCounters(const ProcessCounters& reading) override;
    bool failed() const override;
    Error sinkError() const override;

    // Flushes pending run-length records, ends the zstd stream, writes the tables,
    // stats block, footer and header, and renames the file into place. Once only. Then
    // the thread names, if any, go beside it (FILE.bin.names.json); the `.bin` itself is
    // CPython's format, byte for byte.
    Status finalize();

    // The samples so far as a whole `.bin` at `destination` (and its side file), while
    // this writer goes on: the control socket's `flush`. Pending runs and zstd's buffer are
    // flushed into this file (so its bytes then differ from CPython's writer, never its
    // samples); the copy ends the zstd frame with an empty last block, then gets its own
    // tables, footer and header. Written through AtomicFile: all or nothing. On the
    // producing thread, between batches. A checkpoint's failure is not the writer's.
    Status checkpoint(const std::filesystem::path& destination);

    uint64_t totalSamples() const;
    // CPython's writer get_stats() figures so far.
    const TachRecordStats& stats() const;

private:
    struct Impl;
    explicit TachWriter(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace gilscope
