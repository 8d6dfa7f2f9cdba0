#include "app/commands/record_output.h"

#include "core/collapsed/collapsed_writer.h"
#include "core/gecko/gecko_collector.h"
#include "core/jsonl/jsonl_writer.h"
#include "core/pstats/pstats_collector.h"
#include "core/tach/tach_writer.h"
#include "core/util/utf8.h"

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

Status cancelled() {
    return makeError(ErrorKind::Cancelled, "aborted; no output written");
}

class CollapsedOutput final : public RecordingOutput {
public:
    explicit CollapsedOutput(fs::path dest) : dest_(std::move(dest)) {}
    SampleSink& sink() override { return writer_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        return writer_.writeTo(dest_);
    }
    std::string writtenMessage() const override {
        return "Collapsed stack output written to " + escapeForDisplay(dest_.string());
    }

private:
    fs::path dest_;
    CollapsedWriter writer_;
};

class GeckoOutput final : public RecordingOutput {
public:
    GeckoOutput(fs::path dest, GeckoOptions options)
        : dest_(std::move(dest)), collector_(std::move(options)) {}
    SampleSink& sink() override { return collector_; }
    Status write(const CancelToken& cancel) override {
        if (const auto& e = collector_.lastError()) return *e;
        return collector_.exportTo(dest_, {}, &cancel);
    }
    std::string writtenMessage() const override {
        return "Gecko profile written to " + escapeForDisplay(dest_.string());
    }

private:
    fs::path dest_;
    GeckoCollector collector_;
};

class BinaryOutput final : public RecordingOutput {
public:
    BinaryOutput(fs::path dest, std::unique_ptr<TachWriter> writer)
        : dest_(std::move(dest)), writer_(std::move(writer)) {}
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

private:
    fs::path dest_;
    std::unique_ptr<TachWriter> writer_;
};

// CPython's default output: the table on stdout, or with -o the marshal file (and no
// message, as CPython prints none).
class PstatsOutput final : public RecordingOutput {
public:
    PstatsOutput(fs::path dest, pstats::TableOptions table)
        : dest_(std::move(dest)), table_(table) {}
    SampleSink& sink() override { return collector_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        if (!dest_.empty()) return collector_.writeTo(dest_);
        collector_.printTable(stdout, table_);
        return {};
    }
    std::string writtenMessage() const override { return {}; }

private:
    fs::path dest_;
    pstats::TableOptions table_;
    pstats::PstatsCollector collector_;
};

class JsonlOutput final : public RecordingOutput {
public:
    JsonlOutput(fs::path dest, int mode) : dest_(std::move(dest)), writer_(mode) {}
    SampleSink& sink() override { return writer_; }
    Status write(const CancelToken& cancel) override {
        if (cancel.cancelled()) return cancelled();
        return writer_.writeTo(dest_);
    }
    std::string writtenMessage() const override {
        return "JSONL profile written to " + escapeForDisplay(dest_.string());
    }

private:
    fs::path dest_;
    jsonl::JsonlWriter writer_;
};

} // namespace

Result<std::unique_ptr<RecordingOutput>> createRecordingOutput(const RecordOptions& options,
                                                               const fs::path& destination) {
    switch (options.format) {
    case OutputFormat::Collapsed:
        return std::unique_ptr<RecordingOutput>(std::make_unique<CollapsedOutput>(destination));
    case OutputFormat::Gecko: {
        GeckoOptions g;
        g.intervalUs = options.intervalUs;
        g.opcodes = options.opcodes;
        return std::unique_ptr<RecordingOutput>(
            std::make_unique<GeckoOutput>(destination, std::move(g)));
    }
    case OutputFormat::Binary: {
        TachWriterOptions t;
        t.compression =
            options.compression == "none" ? TachCompression::None : TachCompression::Zstd;
        auto writer = TachWriter::create(destination, t);
        if (!writer) return writer.error();
        return std::unique_ptr<RecordingOutput>(
            std::make_unique<BinaryOutput>(destination, std::move(writer.value())));
    }
    case OutputFormat::Pstats: {
        pstats::TableOptions t;
        pstats::parseSort(options.sort, t.sort);
        t.limit = options.limit;
        t.summary = options.summary;
        t.cpuMode = options.mode == ProfilingMode::Cpu;
        t.color = pstats::canColorize(1);
        return std::unique_ptr<RecordingOutput>(std::make_unique<PstatsOutput>(destination, t));
    }
    case OutputFormat::Jsonl: // the meta record names the mode the recording used
        return std::unique_ptr<RecordingOutput>(std::make_unique<JsonlOutput>(
            destination, static_cast<int>(recordedMode(options.readOptions()))));
    }
    return makeError(ErrorKind::Internal, "unknown output format");
}

} // namespace gilscope::cli
