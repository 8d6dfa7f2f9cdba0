// gilscope replay FILE.bin --gecko|--collapsed|--pstats|--jsonl [-o OUT]: converts a Tachyon .bin
// recording, as `python -m profiling.sampling replay` does, with its progress on stderr.
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/default_output_path.h"
#include "app/commands/record_interrupts.h"
#include "core/collapsed/collapsed_writer.h"
#include "core/gecko/gecko_collector.h"
#include "core/jsonl/jsonl_writer.h"
#include "core/pstats/pstats_collector.h"
#include "core/sample/thread_status.h"
#include "core/tach/tach_reader.h"
#include "core/util/utf8.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <unistd.h>

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

std::string withThousands(uint64_t v) {
    std::string digits = std::to_string(v), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

// CPython's replay bar: "\r  [████░░░░] 12.5% (1,000/8,000)", redrawn per 0.1 %.
class ProgressBar {
public:
    void operator()(uint64_t done, uint64_t total) {
        const uint64_t permille = total ? std::min<uint64_t>(1000, done * 1000 / total) : 1000;
        if (permille == lastPermille_ && (done != total || done == lastDone_)) return;
        lastPermille_ = permille;
        lastDone_ = done;
        const int filled = static_cast<int>(permille * 40 / 1000);
        std::string bar;
        for (int i = 0; i < 40; ++i)
            bar += i < filled ? "\u2588" : "\u2591";
        std::fprintf(stderr, "\r  [%s] %5.1f%% (%s/%s)", bar.c_str(), permille / 10.0,
                     withThousands(done).c_str(), withThousands(total).c_str());
        std::fflush(stderr);
    }

private:
    uint64_t lastPermille_ = UINT64_MAX;
    uint64_t lastDone_ = UINT64_MAX;
};

// -o may name a directory; without -o the name is CPython's "{format}_{pid}.{ext}".
fs::path outputPath(const QString& option, const char* format, const char* ext) {
    return defaultOutputPath(option.isEmpty() ? fs::path() : argumentPath(option), format,
                             ::getpid(), ext);
}

int runReplay(const QStringList& args) {
    CommandLine cli("replay", "Convert a binary (.bin) recording to another format.");
    QCommandLineParser& parser = cli.parser();
    parser.addPositionalArgument("input",
                                 "The .bin file written by `--binary` (gilscope or CPython 3.15).");
    const QCommandLineOption gecko("gecko", "Write a Firefox Profiler (Gecko) JSON profile.");
    const QCommandLineOption collapsed("collapsed",
                                       "Write collapsed stacks (for flamegraph.pl, speedscope).");
    const QCommandLineOption output(QStringList{"o", "output"}, "Output file or directory.",
                                    "path");
    const QCommandLineOption pstatsOpt(
        "pstats", "Print a pstats table (or with -o, write a file pstats.Stats() loads).");
    const QCommandLineOption sort("sort", "--pstats table order (default nsamples).", "KEY");
    const QCommandLineOption limit(QStringList{"l", "limit"}, "--pstats table rows (15).", "N");
    const QCommandLineOption noSummary("no-summary", "--pstats table without the summary.");
    const QCommandLineOption jsonlOpt("jsonl", "Write newline-delimited JSON (CPython's schema).");
    parser.addOptions({gecko, collapsed, pstatsOpt, jsonlOpt, sort, limit, noSummary, output});
    if (auto done = cli.parse(args)) return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return cli.usageErrorSeeHelp("expected one input file");
    if (int(parser.isSet(gecko)) + int(parser.isSet(collapsed)) + int(parser.isSet(pstatsOpt)) +
            int(parser.isSet(jsonlOpt)) !=
        1)
        return cli.usageError("choose exactly one output format: --gecko, --collapsed, --pstats "
                              "or --jsonl");
    pstats::TableOptions table;
    if (parser.isSet(sort) && !pstats::parseSort(parser.value(sort).toStdString(), table.sort))
        return cli.usageError("argument --sort: invalid choice: '" + parser.value(sort) + "'");
    bool limitOk = true;
    if (parser.isSet(limit)) table.limit = parser.value(limit).toLong(&limitOk);
    if (!limitOk)
        return cli.usageError("argument -l/--limit: invalid int value: '" + parser.value(limit) +
                              "'");
    table.summary = !parser.isSet(noSummary);
    table.color = pstats::canColorize(STDOUT_FILENO);
    if (!parser.isSet(pstatsOpt) &&
        (parser.isSet(sort) || parser.isSet(limit) || parser.isSet(noSummary)))
        return cli.usageError("--sort, --limit and --no-summary are only valid with --pstats");

    const fs::path input = argumentPath(positional[0]);
    std::error_code ec;
    if (!fs::exists(input, ec))
        return fail(makeError(ErrorKind::Io, "Input file not found: " + input.string()));
    auto reader = TachReader::open(input);
    if (!reader) return fail(reader.error());
    const TachInfo& info = reader->info();

    const bool toGecko = parser.isSet(gecko);
    const bool toPstats = parser.isSet(pstatsOpt);
    const bool toJsonl = parser.isSet(jsonlOpt);
    const fs::path dest =
        toGecko    ? outputPath(parser.value(output), "gecko", "json")
        : toJsonl  ? outputPath(parser.value(output), "jsonl", "jsonl")
        : toPstats ? (parser.isSet(output) ? argumentPath(parser.value(output)) : fs::path())
                   : outputPath(parser.value(output), "collapsed", "txt");
    // Made before the replay, so an output that cannot be written fails at once (none for
    // a pstats table, which goes to stdout).
    std::optional<AtomicFile> file;
    if (!dest.empty()) {
        auto made = AtomicFile::create(dest);
        if (!made) return fail(made.error());
        file.emplace(std::move(made.value()));
        if (file->isStdout()) sendMessagesToStderr();
    }
    const InterruptGuard interrupts(FirstInterrupt::Cancels);

    std::fprintf(stderr, "Replaying %llu samples from %s\n",
                 static_cast<unsigned long long>(info.sampleCount),
                 escapeForDisplay(input.string()).c_str());
    std::fprintf(stderr, "  Sample interval: %llu us\n",
                 static_cast<unsigned long long>(info.sampleIntervalUs));
    std::fprintf(stderr, "  Compression: %s\n", info.compression == 1 ? "zstd" : "none");

    GeckoOptions geckoOptions;
    geckoOptions.intervalUs = info.sampleIntervalUs;
    geckoOptions.startTimeMs = static_cast<double>(info.startTimeUs) / 1000.0;
    GeckoCollector geckoSink(geckoOptions);
    CollapsedWriter collapsedSink;
    pstats::PstatsCollector pstatsSink;
    table.cpuMode = info.mode == static_cast<int>(ProfilingMode::Cpu);
    jsonl::JsonlWriter jsonlSink(info.mode);
    SampleSink& sink = toGecko    ? static_cast<SampleSink&>(geckoSink)
                       : toPstats ? static_cast<SampleSink&>(pstatsSink)
                       : toJsonl  ? static_cast<SampleSink&>(jsonlSink)
                                  : collapsedSink;

    ProgressBar bar;
    auto replayed = reader->replay(sink, std::ref(bar), &interrupts.abortToken());
    std::fprintf(stderr, "\n");
    if (!replayed) return fail(replayed.error());
    std::fprintf(stderr, "Replayed %llu samples\n", static_cast<unsigned long long>(*replayed));
    if (*replayed == 0)
        return fail(makeError(ErrorKind::NoSamples, "the recording holds no samples; " +
                                                        escapeForDisplay(dest.string()) +
                                                        " was not written"));

    if (!file) {
        pstatsSink.printTable(stdout, table);
        return 0;
    }
    Status written = toGecko    ? geckoSink.exportTo(std::move(*file), {}, &interrupts.abortToken())
                     : toPstats ? pstatsSink.writeTo(std::move(*file))
                     : toJsonl  ? jsonlSink.writeTo(std::move(*file))
                                : collapsedSink.writeTo(std::move(*file));
    if (!written) return fail(written.error());
    if (toPstats) return 0; // CPython prints nothing after writing the file
    if (toJsonl) {
        std::fprintf(messages(), "JSONL profile written to %s\n",
                     escapeForDisplay(dest.string()).c_str());
        return 0;
    }
    if (toGecko) {
        std::fprintf(messages(), "Gecko profile written to %s\n",
                     escapeForDisplay(dest.string()).c_str());
        std::fprintf(messages(), "Open in Firefox Profiler: https://profiler.firefox.com/\n");
    } else {
        std::fprintf(messages(), "Collapsed stack output written to %s\n",
                     escapeForDisplay(dest.string()).c_str());
    }
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(replay, "replay",
                          "Convert a binary (.bin) recording to Gecko JSON or collapsed stacks",
                          runReplay);

} // namespace gilscope::cli
