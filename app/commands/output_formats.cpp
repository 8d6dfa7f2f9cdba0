#include "app/commands/output_formats.h"

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

// Most formats: one sink, one file written whole at the end from what the sink gathered.
template <typename Sink>
class SinkToFile final : public RecordingOutput {
public:
    using Write = Status (*)(Sink&, AtomicFile, const CancelToken&);
    SinkToFile(AtomicFile file, std::unique_ptr<Sink> sink, Write write, std::string message)
        : file_(std::move(file)), sink_(std::move(sink)), write_(write),
          message_(std::move(message)) {}
    SampleSink& sink() override { return *sink_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        return write_(*sink_, std::move(file_), cancel);
    }
    std::string writtenMessage() const override { return message_; }
    void discard() override { file_.discard(); }
    bool toStdout() const override { return stdout_; }

private:
    AtomicFile file_;
    bool stdout_ = file_.isStdout();
    std::unique_ptr<Sink> sink_;
    Write write_;
    std::string message_;
};

template <typename Sink>
OutputMade sinkToFile(const fs::path& destination, std::unique_ptr<Sink> sink,
                      typename SinkToFile<Sink>::Write write, const char* writtenTo,
                      const char* suffix = "") {
    auto file = AtomicFile::create(destination);
    if (!file) return file.error();
    return std::unique_ptr<RecordingOutput>(std::make_unique<SinkToFile<Sink>>(
        std::move(*file), std::move(sink), write,
        writtenTo + escapeForDisplay(destination.string()) + suffix));
}

// --binary: CPython's .bin, written as it records (a flush checkpoints it in place).
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

OutputMade createCollapsed(const OutputOptions&, const RecordingFacts&, const fs::path& dest) {
    return sinkToFile<CollapsedWriter>(
        dest, std::make_unique<CollapsedWriter>(),
        [](CollapsedWriter& w, AtomicFile f, const CancelToken&) {
            return w.writeTo(std::move(f));
        },
        "Collapsed stack output written to ");
}

OutputMade createGecko(const OutputOptions&, const RecordingFacts& facts, const fs::path& dest) {
    GeckoOptions g;
    g.intervalUs = facts.intervalUs;
    g.opcodes = facts.opcodes;
    g.startTimeMs = facts.startTimeMs;
    return sinkToFile<GeckoCollector>(
        dest, std::make_unique<GeckoCollector>(std::move(g)),
        [](GeckoCollector& c, AtomicFile f, const CancelToken& cancel) {
            return c.exportTo(std::move(f), {}, &cancel);
        },
        "Gecko profile written to ");
}

OutputMade createBinary(const OutputOptions& options, const RecordingFacts&, const fs::path& dest) {
    TachWriterOptions t;
    t.compression =
        options.compression == Compression::None ? TachCompression::None : TachCompression::Zstd;
    auto file = AtomicFile::create(dest, {.needsSeek = true});
    if (!file) return file.error();
    const bool toStdout = file->isStdout();
    auto writer = TachWriter::create(std::move(file.value()), t);
    if (!writer) return writer.error();
    return std::unique_ptr<RecordingOutput>(
        std::make_unique<BinaryOutput>(dest, std::move(writer.value()), toStdout));
}

OutputMade createPstats(const OutputOptions& options, const RecordingFacts& facts,
                        const fs::path& dest) {
    pstats::TableOptions t;
    pstats::parseSort(options.sort, t.sort);
    t.limit = options.limit;
    t.summary = options.summary;
    t.cpuMode = facts.mode == static_cast<int>(ProfilingMode::Cpu);
    t.color = pstats::canColorize(1);
    std::optional<AtomicFile> file; // without -o, the table goes to stdout
    if (!dest.empty()) {
        auto made = AtomicFile::create(dest);
        if (!made) return made.error();
        file.emplace(std::move(made.value()));
    }
    return std::unique_ptr<RecordingOutput>(std::make_unique<PstatsOutput>(std::move(file), t));
}

OutputMade createJsonl(const OutputOptions&, const RecordingFacts& facts, const fs::path& dest) {
    // The meta record names the mode the recording used.
    return sinkToFile<jsonl::JsonlWriter>(
        dest, std::make_unique<jsonl::JsonlWriter>(facts.mode),
        [](jsonl::JsonlWriter& w, AtomicFile f, const CancelToken&) {
            return w.writeTo(std::move(f));
        },
        "JSONL profile written to ");
}

OutputMade createPprof(const OutputOptions&, const RecordingFacts& facts, const fs::path& dest) {
    return sinkToFile<pprof::PprofSink>(
        dest, std::make_unique<pprof::PprofSink>(pprofSinkOptions(facts)),
        [](pprof::PprofSink& s, AtomicFile f, const CancelToken&) {
            return pprof::writePprof(s.take(false), std::move(f));
        },
        "pprof profile written to ", " (go tool pprof reads it)");
}

OutputMade createHeatmap(const OutputOptions&, const RecordingFacts& facts, const fs::path& dest) {
    return createHeatmapOutput(dest, facts);
}

constexpr OutputFormatRow kRows[] = {
    {OutputFormat::Collapsed, "collapsed",
     "Write collapsed stacks for flamegraph.pl / speedscope (default).", nullptr, "collapsed",
     "txt", createCollapsed},
    {OutputFormat::Gecko, "gecko", "Write a Firefox Profiler (Gecko) profile.", nullptr, "gecko",
     "json", createGecko},
    {OutputFormat::Binary, "binary",
     "Write CPython's binary .bin format (replayable with `gilscope replay`).", nullptr, "binary",
     "bin", createBinary},
    {OutputFormat::Pstats, "pstats",
     "Write pstats: a table on stdout, or with -o a file pstats.Stats() loads.", nullptr, "pstats",
     "pstats", createPstats},
    {OutputFormat::Jsonl, "jsonl", "Write newline-delimited JSON (CPython's JSONL schema).",
     nullptr, "jsonl", "jsonl", createJsonl},
    // gzip'd profile.proto, as `go tool pprof` names its files.
    {OutputFormat::Pprof, "pprof",
     "Write a gzip'd pprof profile (profile.proto) for go tool pprof, Pyroscope or Parca, "
     "with thread_id, thread_name and thread_state labels.",
     nullptr, "pprof", "pb.gz", createPprof},
    {OutputFormat::Flamegraph, "flamegraph",
     "Write an interactive HTML flame graph: one offline file (default "
     "flamegraph_{pid}.html).",
     nullptr, "flamegraph", "html", createHtmlOutput},
    {OutputFormat::DiffFlamegraph, "diff-flamegraph",
     "Write an HTML flame graph coloured by each frame's change of share against "
     "BASELINE, a .bin recording (default diff_flamegraph_{pid}.html).",
     "BASELINE", "diff_flamegraph", "html", createHtmlOutput},
    // A folder: heatmapFolder() names it.
    {OutputFormat::Heatmap, "heatmap",
     "Write an HTML heatmap folder (default heatmap_PID; -o names the folder): an index "
     "of the source files by samples and each file with own and total samples per line.",
     nullptr, "heatmap", "", createHeatmap},
};

} // namespace

std::span<const OutputFormatRow> outputFormatRows() {
    return kRows;
}

const OutputFormatRow& outputFormatRow(OutputFormat format) {
    for (const OutputFormatRow& row : kRows)
        if (row.format == format) return row;
    return kRows[0];
}

} // namespace gilscope::cli
