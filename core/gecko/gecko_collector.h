#pragma once

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/util/atomic_file.h"
#include "core/util/cancel.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace gilscope {

struct GeckoOptions {
    // Fallback meta.interval (ms = intervalUs / 1000) when the samples cannot give one.
    // begin() replaces it with RecordingInfo::sampleIntervalUs when that is non-zero.
    uint64_t intervalUs = 1000;
    // Opcode interval markers and their marker schema (CLI --opcodes).
    bool opcodes = false;
    // Per spilled column (8 per thread): bytes kept in memory before appending to disk.
    size_t spillBufferBytes = 128 * 1024;

    // Machine-dependent fields, overridable so golden tests can pin them.
    std::optional<double> startTimeMs; // meta.startTime; default CLOCK_MONOTONIC ms at construction
    std::optional<std::string> pid;    // threads[].pid; default this process's pid
    std::optional<std::string> abi;    // meta.abi and meta.oscpu; default uname().machine
    std::optional<std::string> platform; // meta.platform; default uname().sysname ("Linux")
    std::optional<int> cpus;             // meta.physicalCPUs and logicalCPUs; default online CPUs

    // Test hook: called before each chunk goes to the destination file; a failing Status
    // aborts the export exactly like a failed write would (disk full, I/O error).
    std::function<Status(uint64_t bytesWrittenSoFar)> beforeWrite;
};

// Turns samples into a Firefox Profiler processed profile (meta.version 32,
// preprocessedProfileVersion 57), as CPython 3.15's GeckoCollector does, in bounded
// memory: per-thread sample and marker columns are spilled, in chunks, to one shared
// file in a private temporary directory ("gilscope-gecko-<pid>-*/spill.bin", created
// on first thread, removed once an export is committed and on destruction);
// each column's last partial chunk stays in memory. The deduplicated
// stack/frame/func/resource tables and the string array stay in memory.
//
// Threading: begin/addBatch/finish and exportTo must not run concurrently (exportTo may
// run on another thread once recording has stopped); only the CancelToken may be
// touched from another thread during export.
//
// Once exportTo() has started, a later addBatch() is ignored and recorded as an error
// ("cannot add samples to the Gecko collector after export"), reported by failed() and sinkError()
// and by a later exportTo(). An export that fails or is cancelled keeps everything (the
// recording cannot be taken again), so exportTo() can be retried; after one succeeds the
// collector is spent. addBatch() never throws.
class GeckoCollector final : public SampleSink {
public:
    explicit GeckoCollector(GeckoOptions options = {});
    ~GeckoCollector() override;
    GeckoCollector(const GeckoCollector&) = delete;
    GeckoCollector& operator=(const GeckoCollector&) = delete;

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    // Named threads export as "name (tid)", others as CPython's "Thread-<tid>".
    void nameThread(uint64_t threadId, const std::string& name) override;
    void addMarker(uint64_t timestampUs, const std::string& text) override;
    // Kept (thinned as CounterSeries does) for the export's "counters".
    void addCounters(const ProcessCounters& reading) override;
    void finish(const RecordingSummary& summary) override;
    // True once the spill directory failed (disk full, not writable): the recording
    // should stop; everything collected until then still exports (it stayed in memory).
    bool failed() const override;
    Error sinkError() const override;

    // Streams the profile into a temporary file beside dest, then renames it over dest.
    // On any failure (I/O, disk full, cancel, count mismatch) dest is untouched and no
    // temporary file remains. progress gets (items streamed, items total), where items
    // are the values of the spilled columns plus the strings. Cancelling
    // from another thread stops the export within ~200 ms with ErrorKind::Cancelled.
    Status exportTo(const std::filesystem::path& dest, const ProgressCallback& progress = {},
                    const CancelToken* cancel = nullptr);
    // The same into a file made earlier (the CLI makes it before sampling starts).
    Status exportTo(AtomicFile file, const ProgressCallback& progress = {},
                    const CancelToken* cancel = nullptr);

    bool exported() const;        // an export was committed (the spill is gone)
    uint64_t sampleCount() const; // thread-samples recorded so far
    size_t threadCount() const;
    // The spill directory, empty before the first thread and after cleanup.
    std::filesystem::path spillDirectory() const;

    struct Impl; // opaque; defined in core/gecko/gecko_collector_impl.h

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace gilscope
