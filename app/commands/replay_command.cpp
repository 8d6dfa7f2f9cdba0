// gilscope replay FILE.bin --gecko|--collapsed|--pstats|--jsonl|--pprof|--flamegraph|
// --diff-flamegraph BASELINE [-o OUT] [--browser]: converts a
// Tachyon .bin recording, as `python -m profiling.sampling replay` does, with its progress on
// stderr.
#include "app/commands/browser_open.h"
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/output_options.h"
#include "app/commands/record_interrupts.h"
#include "app/commands/recording_output.h"
#include "app/commands/transform_options.h"
#include "core/pstats/pstats_collector.h"
#include "core/tach/tach_describe.h"
#include "core/tach/tach_reader.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

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
                     groupedThousands(done).c_str(), groupedThousands(total).c_str());
        std::fflush(stderr);
    }

private:
    uint64_t lastPermille_ = UINT64_MAX;
    uint64_t lastDone_ = UINT64_MAX;
};

// --gecko, --collapsed, --pstats or --jsonl and the --pstats table options, with
// replay's own wording; the rest of the output choice is record's.
std::optional<int> readOutputOptions(const CommandLine& cli, const QCommandLineParser& parser,
                                     OutputOptions& out) {
    int formats = 0;
    for (const auto& [flag, format] :
         {std::pair{"gecko", OutputFormat::Gecko}, std::pair{"collapsed", OutputFormat::Collapsed},
          std::pair{"pstats", OutputFormat::Pstats}, std::pair{"jsonl", OutputFormat::Jsonl},
          std::pair{"pprof", OutputFormat::Pprof},
          std::pair{"flamegraph", OutputFormat::Flamegraph},
          std::pair{"diff-flamegraph", OutputFormat::DiffFlamegraph},
          std::pair{"heatmap", OutputFormat::Heatmap}})
        if (parser.isSet(flag)) {
            out.format = format;
            ++formats;
        }
    if (formats != 1)
        return cli.usageError("choose exactly one output format: --gecko, --collapsed, --pstats, "
                              "--jsonl, --pprof, --flamegraph, --diff-flamegraph or --heatmap");
    if (out.format == OutputFormat::DiffFlamegraph)
        out.baseline = argumentBytes(parser.value("diff-flamegraph"));
    if (parser.isSet("sort")) {
        out.sort = parser.value("sort").toStdString();
        pstats::Sort known;
        if (!pstats::parseSort(out.sort, known))
            return cli.usageError("argument --sort: invalid choice: '" + parser.value("sort") +
                                  "'");
    }
    bool limitOk = true;
    if (parser.isSet("limit")) out.limit = parser.value("limit").toLong(&limitOk);
    if (!limitOk)
        return cli.usageError("argument -l/--limit: invalid int value: '" + parser.value("limit") +
                              "'");
    out.summary = !parser.isSet("no-summary");
    if (out.format != OutputFormat::Pstats &&
        (parser.isSet("sort") || parser.isSet("limit") || parser.isSet("no-summary")))
        return cli.usageError("--sort, --limit and --no-summary are only valid with --pstats");
    out.output = argumentBytes(parser.value("output"));
    return std::nullopt;
}

int runReplay(const QStringList& args) {
    CommandLine cli("replay", "Convert a binary (.bin) recording to another format.");
    QCommandLineParser& parser = cli.parser();
    parser.addPositionalArgument("input",
                                 "The .bin file written by `--binary` (gilscope or CPython 3.15).");
    parser.addOptions({
        {"gecko", "Write a Firefox Profiler (Gecko) JSON profile."},
        {"collapsed", "Write collapsed stacks (for flamegraph.pl, speedscope)."},
        {"pstats", "Print a pstats table (or with -o, write a file pstats.Stats() loads)."},
        {"jsonl", "Write newline-delimited JSON (CPython's schema)."},
        {"pprof", "Write a gzip'd pprof profile (go tool pprof, Pyroscope, Parca)."},
        {"flamegraph", "Write an interactive HTML flame graph (one offline file)."},
        {"diff-flamegraph", "Write an HTML flame graph coloured by change against BASELINE (.bin).",
         "BASELINE"},
        {"browser",
         "With --flamegraph, --diff-flamegraph or --heatmap: open the page in a browser."},
        {"heatmap", "Write an HTML heatmap folder (default heatmap_PID; -o names the folder)."},
        {"sort", "--pstats table order (default nsamples).", "KEY"},
        {{"l", "limit"}, "--pstats table rows (15).", "N"},
        {"no-summary", "--pstats table without the summary."},
        {{"o", "output"}, "Output file or directory.", "path"},
    });
    parser.addOptions(transformOptions());
    if (auto done = cli.parse(args)) return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return cli.usageErrorSeeHelp("expected one input file");
    OutputOptions outputOptions;
    if (auto done = readOutputOptions(cli, parser, outputOptions)) return *done;
    if (auto s = readOutputTransforms(parser, outputOptions); !s)
        return cli.usageError(QString::fromStdString(s.error().message));
    const bool browser = parser.isSet("browser");
    if (browser && !opensAsPage(outputOptions.format))
        return cli.usageError(
            "--browser is only valid with --flamegraph, --diff-flamegraph or --heatmap");

    const fs::path input = argumentPath(positional[0]);
    std::error_code ec;
    if (!fs::exists(input, ec))
        return fail(makeError(ErrorKind::Io, "Input file not found: " + input.string()));
    auto reader = TachReader::open(input);
    if (!reader) return fail(reader.error());
    const TachInfo& info = reader->info();

    // The .bin header says what the record options said while recording.
    RecordingFacts facts;
    facts.intervalUs = info.sampleIntervalUs;
    facts.startTimeMs = static_cast<double>(info.startTimeUs) / 1000.0;
    facts.mode = info.mode;
    facts.target = input.string();
    facts.captureFeatures = info.captureFeatures;
    // The file was written when the recording ended: pprof's wall clock for its samples.
    struct stat st {};
    if (::stat(input.c_str(), &st) == 0)
        facts.endWallClockNs = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
    const fs::path dest = outputPath(outputOptions, ::getpid());
    auto output = createRecordingOutput(outputOptions, facts, dest);
    if (!output) return fail(output.error());
    if ((*output)->toStdout()) sendMessagesToStderr();
    const InterruptGuard interrupts(FirstInterrupt::Cancels);

    std::fprintf(stderr, "Replaying %llu samples from %s\n",
                 static_cast<unsigned long long>(info.sampleCount),
                 escapeForDisplay(input.string()).c_str());
    std::fprintf(stderr, "  Sample interval: %llu us\n",
                 static_cast<unsigned long long>(info.sampleIntervalUs));
    std::fprintf(stderr, "  Compression: %s\n", info.compression == 1 ? "zstd" : "none");

    ProgressBar bar;
    auto replayed = reader->replay((*output)->sink(), std::ref(bar), &interrupts.abortToken());
    std::fprintf(stderr, "\n");
    if (!replayed) return fail(replayed.error());
    std::fprintf(stderr, "Replayed %llu samples\n", static_cast<unsigned long long>(*replayed));
    if (*replayed == 0) {
        (*output)->discard();
        return fail(makeError(ErrorKind::NoSamples, "the recording holds no samples; " +
                                                        escapeForDisplay(dest.string()) +
                                                        " was not written"));
    }

    if (const Status written = (*output)->write(interrupts.abortToken()); !written)
        return fail(written.error());
    if (const std::string said = (*output)->writtenMessage(); !said.empty())
        std::fprintf(messages(), "%s\n", said.c_str());
    if (outputOptions.format == OutputFormat::Gecko)
        std::fprintf(messages(), "Open in Firefox Profiler: https://profiler.firefox.com/\n");
    if (browser && !(*output)->toStdout()) // a page sent down a pipe has no file to open
        return openFileInBrowser(
            QString::fromStdString(pageToOpen(outputOptions.format, dest).string()));
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(
    replay, "replay",
    "Convert a binary (.bin) recording to Gecko JSON, collapsed stacks, an HTML flame graph...",
    runReplay);

} // namespace gilscope::cli
