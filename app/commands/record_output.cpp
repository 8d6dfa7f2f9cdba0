#include "app/commands/record_output.h"

#include "app/commands/heatmap_output.h"
#include "app/commands/html_output.h"

#include "core/collapsed/collapsed_writer.h"
#include "core/gecko/gecko_collector.h"
#include "core/jsonl/jsonl_writer.h"
#include "core/pprof/pprof_sink.h"
#include "core/pstats/pstats_collector.h"
#include "core/tach/tach_writer.h"
#include "core/util/utf8.h"

#include <cerrno>
#include <cstdio>
#include <optional>

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

Status cancelled() {
    return makeError(ErrorKind::Cancelled, "aborted; no output written");
}

class CollapsedOutput final : public RecordingOutput {
public:
    CollapsedOutput(fs::path dest, AtomicFile file)
        : dest_(std::move(dest)), file_(std::move(file)) {}
    SampleSink& sink() override { return writer_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        return writer_.writeTo(std::move(file_));
    }
    std::string writtenMessage() const override {
        return "Collapsed stack output written to " + escapeForDisplay(dest_.string());
    }
    void discard() override { file_.discard(); }
    bool toStdout() const override { return stdout_; }

private:
    fs::path dest_;
    AtomicFile file_;
    bool stdout_ = file_.isStdout();
    CollapsedWriter writer_;
};

class GeckoOutput final : public RecordingOutput {
public:
    GeckoOutput(fs::path dest, AtomicFile file, GeckoOptions options)
        : dest_(std::move(dest)), file_(std::move(file)), collector_(std::move(options)) {}
    SampleSink& sink() override { return collector_; }
    Status write(const CancelToken& cancel) override {
        return collector_.exportTo(std::move(file_), {}, &cancel);
    }
    std::string writtenMessage() const override {
        return "Gecko profile written to " + escapeForDisplay(dest_.string());
    }
    void discard() override { file_.discard(); }
    bool toStdout() const override { return stdout_; }

private:
    fs::path dest_;
    AtomicFile file_;
    bool stdout_ = file_.isStdout();
    GeckoCollector collector_;
};

class BinaryOutput final : public RecordingOutput {
public:
    BinaryOutput(fs::path dest, std::unique_ptr<TachWriter> writer, bool toStdout)
        : dest_(std::move(dest)), writer_(std::move(writer)), stdout_(toStdout) {}
    SampleSink& sink() override { return *writer_; }
    Status write(const CancelToken& cancel) override {
        // Dropping the writer without finalize() removes its temporary file.
        if (cancel.cancelled()) return cancelled();
        return writer_->finalize();
    }
    std::string writtenMessage() const override {
        return "Binary profile written to " + escapeForDisplay(dest_.string()) + " (" +
               std::to_string(writer_->totalSamples()) + " samples)";
    }
    void discard() override { writer_.reset(); } // removes its temporary file
    TachWriter* binaryWriter() override { return writer_.get(); }
    bool toStdout() const override { return stdout_; }

private:
    fs::path dest_;
    std::unique_ptr<TachWriter> writer_;
    bool stdout_;
};

// CPython's default output: the table on stdout, or with -o the marshal file (and no
// message, as CPython prints none).
class PstatsOutput final : public RecordingOutput {
public:
    PstatsOutput(std::optional<AtomicFile> file, pstats::TableOptions table)
        : file_(std::move(file)), table_(table) {}
    SampleSink& sink() override { return collector_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        if (file_) return collector_.writeTo(std::move(*file_));
        collector_.printTable(stdout, table_);
        // The table is the output: a full disk or a closed pipe is a failed write.
        errno = 0;
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            const int err = errno ? errno : EIO;
            std::clearerr(stdout); // reported here, not again when the command ends
            return ioError(err, "cannot write the table to", "standard output");
        }
        return {};
    }
    std::string writtenMessage() const override { return {}; }
    void discard() override {
        if (file_) file_->discard();
    }
    // The table is text for people, printed with the summary as CPython does; only a
    // marshal file sent to stdout (-o -) keeps stdout to itself.
    bool toStdout() const override { return file_ && file_->isStdout(); }

private:
    std::optional<AtomicFile> file_; // none: the table goes to stdout
    pstats::TableOptions table_;
    pstats::PstatsCollector collector_;
};

class JsonlOutput final : public RecordingOutput {
public:
    JsonlOutput(fs::path dest, AtomicFile file, std::optional<int> mode)
        : dest_(std::move(dest)), file_(std::move(file)), writer_(mode) {}
    SampleSink& sink() override { return writer_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        return writer_.writeTo(std::move(file_));
    }
    std::string writtenMessage() const override {
        return "JSONL profile written to " + escapeForDisplay(dest_.string());
    }
    void discard() override { file_.discard(); }
    bool toStdout() const override { return stdout_; }

private:
    fs::path dest_;
    AtomicFile file_;
    bool stdout_ = file_.isStdout();
    jsonl::JsonlWriter writer_;
};

class PprofOutput final : public RecordingOutput {
public:
    PprofOutput(fs::path dest, AtomicFile file, pprof::PprofSinkOptions options)
        : dest_(std::move(dest)), file_(std::move(file)), sink_(options) {}
    SampleSink& sink() override { return sink_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        return pprof::writePprof(sink_.take(false), std::move(file_));
    }
    std::string writtenMessage() const override {
        return "pprof profile written to " + escapeForDisplay(dest_.string()) +
               " (go tool pprof reads it)";
    }
    void discard() override { file_.discard(); }
    bool toStdout() const override { return stdout_; }

private:
    fs::path dest_;
    AtomicFile file_;
    bool stdout_ = file_.isStdout();
    pprof::PprofSink sink_;
};

} // namespace

pprof::PprofSinkOptions pprofSinkOptions(const RecordingFacts& facts) {
    pprof::PprofSinkOptions p;
    p.wall = !facts.mode || *facts.mode == static_cast<int>(ProfilingMode::Wall) ||
             *facts.mode == static_cast<int>(ProfilingMode::Unknown);
    p.wallClockEndNs = facts.endWallClockNs;
    return p;
}

Result<std::unique_ptr<RecordingOutput>> createRecordingOutput(const OutputOptions& options,
                                                               const RecordingFacts& facts,
                                                               const fs::path& destination) {
    if (options.format == OutputFormat::Binary) {
        TachWriterOptions t;
        t.compression = options.compression == Compression::None ? TachCompression::None
                                                                 : TachCompression::Zstd;
        auto file = AtomicFile::create(destination, {.needsSeek = true});
        if (!file) return file.error();
        const bool toStdout = file->isStdout();
        auto writer = TachWriter::create(std::move(file.value()), t);
        if (!writer) return writer.error();
        return std::unique_ptr<RecordingOutput>(
            std::make_unique<BinaryOutput>(destination, std::move(writer.value()), toStdout));
    }
    if (options.format == OutputFormat::Heatmap) return createHeatmapOutput(destination, facts);
    if (isHtmlFormat(options.format)) return createHtmlOutput(options, facts, destination);
    if (options.format == OutputFormat::Pstats) {
        pstats::TableOptions t;
        pstats::parseSort(options.sort, t.sort);
        t.limit = options.limit;
        t.summary = options.summary;
        t.cpuMode = facts.mode == static_cast<int>(ProfilingMode::Cpu);
        t.color = pstats::canColorize(1);
        std::optional<AtomicFile> file; // without -o, the table goes to stdout
        if (!destination.empty()) {
            auto made = AtomicFile::create(destination);
            if (!made) return made.error();
            file.emplace(std::move(made.value()));
        }
        return std::unique_ptr<RecordingOutput>(std::make_unique<PstatsOutput>(std::move(file), t));
    }
    auto file = AtomicFile::create(destination);
    if (!file) return file.error();
    switch (options.format) {
    case OutputFormat::Collapsed:
        return std::unique_ptr<RecordingOutput>(
            std::make_unique<CollapsedOutput>(destination, std::move(file.value())));
    case OutputFormat::Gecko: {
        GeckoOptions g;
        g.intervalUs = facts.intervalUs;
        g.opcodes = facts.opcodes;
        g.startTimeMs = facts.startTimeMs;
        return std::unique_ptr<RecordingOutput>(
            std::make_unique<GeckoOutput>(destination, std::move(file.value()), std::move(g)));
    }
    case OutputFormat::Jsonl: // the meta record names the mode the recording used
        return std::unique_ptr<RecordingOutput>(
            std::make_unique<JsonlOutput>(destination, std::move(file.value()), facts.mode));
    case OutputFormat::Pprof:
        return std::unique_ptr<RecordingOutput>(std::make_unique<PprofOutput>(
            destination, std::move(file.value()), pprofSinkOptions(facts)));
    case OutputFormat::Binary:
    case OutputFormat::Pstats:
    case OutputFormat::Heatmap:
    case OutputFormat::Flamegraph:
    case OutputFormat::DiffFlamegraph:
        break;
    }
    return makeError(ErrorKind::Internal, "unknown output format");
}

RecordingFacts recordingFacts(const RecordOptions& options, int pid) {
    RecordingFacts facts;
    facts.intervalUs = options.intervalUs;
    facts.opcodes = options.opcodes;
    facts.mode = static_cast<int>(recordedMode(options.readOptions()));
    const ReadOptions read = options.readOptions(); // the bits the sampler will stamp
    facts.captureFeatures = int(
        (read.allThreads ? CaptureFeature::AllThreads : 0) | (read.gc ? CaptureFeature::Gc : 0) |
        (read.native ? CaptureFeature::Native : 0) | (read.opcodes ? CaptureFeature::Opcodes : 0));
    facts.liveTarget = true;
    facts.pid = pid;
    facts.target = "PID " + std::to_string(pid);
    return facts;
}

Result<std::unique_ptr<RecordingOutput>>
createRecordingOutput(const RecordOptions& options, const fs::path& destination, int pid) {
    return createRecordingOutput(options, recordingFacts(options, pid), destination);
}

} // namespace gilscope::cli
