#pragma once

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/tach/tach_info.h"
#include "core/util/cancel.h"

#include <filesystem>
#include <memory>

namespace gilscope {

// Opens a CPython 3.15 Tachyon `.bin` recording (format version 1, newest header layout)
// and replays it into any SampleSink exactly as CPython's BinaryReader.replay() calls
// collect(): one batch per full/suffix/pop-push record, run-length records batched by
// status. Errors carry CPython's wording (ErrorKind::CorruptFile).
//
// Memory is bounded: the record stream is read (and zstd-decompressed) through fixed
// windows; only the string and frame tables are held, and every count read from the
// file is checked against the file size before it sizes anything.
class TachReader {
public:
    // Validates header, footer, offsets, counts, the stats block and the zstd stream,
    // and loads the string and frame tables.
    static Result<TachReader> open(const std::filesystem::path& path);

    TachReader(TachReader&&) noexcept;
    TachReader& operator=(TachReader&&) noexcept;
    ~TachReader();

    // A second reader of the very file this one read (the same inode, whatever its path
    // names now), for a replay on another thread.
    Result<TachReader> reopen() const;

    const TachInfo& info() const;
    // The process's counters kept beside the file (thread_names_file.h); replay() hands
    // them to its sink too.
    const std::vector<ProcessCounters>& counters() const;

    // Replays every record into `sink`: begin(), addBatch()..., finish() (finish gets
    // the file's TACHSTAT figures; it is not called when replay fails). Progress is
    // (samples replayed, header sample count), reported like CPython's (at 0, each
    // 1000 samples, and at the end). Returns the number of thread-samples replayed.
    // May be called again; each replay starts from the beginning.
    Result<uint64_t> replay(SampleSink& sink, const ProgressCallback& progress = {},
                            const CancelToken* cancel = nullptr);

    // Counters of the last replay (CPython's reader get_stats()).
    const TachRecordStats& recordStats() const;

    // The strings and frames of the file; sinks get the same registry in begin().
    const FrameRegistry& registry() const;

private:
    struct Impl;
    explicit TachReader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace gilscope
