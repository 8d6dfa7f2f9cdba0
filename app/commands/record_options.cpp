#include "app/commands/record_options.h"

#include "app/commands/cli_arguments.h"
#include "app/commands/default_output_path.h"
#include "core/sampling/rate_parser.h"

#include <cmath>
#include <cstdio>

namespace gilscope::cli {

namespace {
constexpr double kMaxDurationSec = 1e9;
}

ReadOptions RecordOptions::readOptions() const {
    ReadOptions r;
    r.allThreads = allThreads;
    r.opcodes = opcodes;
    r.gc = true;
    r.maxDepth = maxDepth;
    // Gecko shows GIL and CPU state, so it samples in CPython's "all" mode; the other
    // formats use wall mode, which does not probe /proc per thread.
    r.cpuState = format == OutputFormat::Gecko;
    return r;
}

void addRecordOptions(QCommandLineParser& parser) {
    parser.addOptions({
        {{"r", "sampling-rate"},
         "Sampling rate: a number of Hz, or with a suffix: 10khz, 10k, 500hz (default 1khz).",
         "RATE",
         "1khz"},
        {{"d", "duration"},
         "Stop recording after SECONDS (default: until the target exits or Ctrl-C).",
         "SECONDS"},
        {{"a", "all-threads"}, "Sample all threads, not only the main thread."},
        {"opcodes", "Record the executing opcode of each frame (--gecko and --binary)."},
        {"realtime-stats", "Print sampling statistics about once a second."},
        {{"o", "output"},
         "Output file (default: {format}_{pid}.{ext}; inside it if it is a directory).",
         "PATH"},
        {"collapsed", "Write collapsed stacks for flamegraph.pl / speedscope (default)."},
        {"gecko", "Write a Firefox Profiler (Gecko) profile."},
        {"binary", "Write CPython's binary .bin format (replayable with `gilscope replay`)."},
        {"browser", "With --gecko: open the profile in the Firefox Profiler when done."},
        {"rt-priority",
         "Run the sampler thread SCHED_FIFO at priority N (1-99; needs root or CAP_SYS_NICE) so it "
         "wakes on time on a busy machine (default 0: off).",
         "N", "0"},
        {"compression", "Compression of --binary output: auto, zstd or none (default auto).",
         "MODE", "auto"},
        {"max-depth",
         "Keep at most N frames of a stack (default 1536, CPython's bound): a deeper one keeps "
         "its leaf frames and root frames around a '<truncated: K frames>' frame.",
         "N", "1536"},
    });
}

Result<RecordOptions> readRecordOptions(const QCommandLineParser& parser) {
    RecordOptions o;
    auto rate = parseSamplingRate(parser.value("sampling-rate").toStdString());
    if (!rate)
        return makeError(ErrorKind::BadArguments,
                         "argument -r/--sampling-rate: " + rate.error().message);
    o.intervalUs = rate.value();

    if (parser.isSet("duration")) {
        bool ok = false;
        const QString text = parser.value("duration");
        const double d = text.toDouble(&ok);
        if (!ok || !std::isfinite(d) || d <= 0)
            return makeError(
                ErrorKind::BadArguments,
                "argument -d/--duration: expected a positive number of seconds, got '" +
                    text.toStdString() + "'");
        // Beyond ~31 years the end time would overflow the clock (1e300 once stopped at
        // once and emptied the output): such a duration means "until the target exits".
        if (d > kMaxDurationSec)
            std::fprintf(stderr,
                         "gilscope: -d %s is longer than any recording can run; recording until "
                         "the target exits or Ctrl-C\n",
                         text.toLocal8Bit().constData());
        else
            o.durationSec = d;
    }
    o.allThreads = parser.isSet("all-threads");
    o.opcodes = parser.isSet("opcodes");
    o.realtimeStats = parser.isSet("realtime-stats");
    bool prioOk = false;
    o.realtimePriority = parser.value("rt-priority").toInt(&prioOk);
    if (!prioOk || o.realtimePriority < 0 || o.realtimePriority > 99)
        return makeError(ErrorKind::BadArguments, "argument --rt-priority: expected 0-99, got '" +
                                                      parser.value("rt-priority").toStdString() +
                                                      "'");
    bool depthOk = false;
    const qulonglong depth = parser.value("max-depth").toULongLong(&depthOk);
    if (!depthOk || depth < 3 || depth > (1u << 20))
        return makeError(ErrorKind::BadArguments,
                         "argument --max-depth: expected a number of frames from 3 to 1048576 "
                         "(the leaf frame, the cut and the root frame at least), got '" +
                             parser.value("max-depth").toStdString() + "'");
    o.maxDepth = depth;
    o.output = argumentBytes(parser.value("output"));

    int formats = 0;
    for (const char* f : {"collapsed", "gecko", "binary"})
        formats += parser.isSet(f) ? 1 : 0;
    if (formats > 1)
        return makeError(
            ErrorKind::BadArguments,
            "argument --collapsed/--gecko/--binary: only one output format may be given");
    if (parser.isSet("gecko")) o.format = OutputFormat::Gecko;
    if (parser.isSet("binary")) o.format = OutputFormat::Binary;

    o.compression = parser.value("compression").toStdString();
    if (o.compression != "auto" && o.compression != "zstd" && o.compression != "none")
        return makeError(ErrorKind::BadArguments, "argument --compression: invalid choice: '" +
                                                      o.compression +
                                                      "' (choose from 'auto', 'zstd', 'none')");
    if (parser.isSet("compression") && o.format != OutputFormat::Binary)
        return makeError(ErrorKind::BadArguments, "--compression is only valid with --binary");
    o.browser = parser.isSet("browser");
    if (o.browser && o.format != OutputFormat::Gecko)
        return makeError(ErrorKind::BadArguments, "--browser is only valid with --gecko");
    if (o.opcodes && o.format == OutputFormat::Collapsed)
        return makeError(ErrorKind::BadArguments,
                         "--opcodes is only compatible with --gecko, --binary.");
    return o;
}

const char* formatName(OutputFormat f) {
    switch (f) {
    case OutputFormat::Collapsed:
        return "collapsed";
    case OutputFormat::Gecko:
        return "gecko";
    case OutputFormat::Binary:
        return "binary";
    }
    return "collapsed";
}

static const char* formatExtension(OutputFormat f) {
    switch (f) {
    case OutputFormat::Collapsed:
        return "txt";
    case OutputFormat::Gecko:
        return "json";
    case OutputFormat::Binary:
        return "bin";
    }
    return "txt";
}

std::filesystem::path outputPath(const RecordOptions& options, int pid) {
    return defaultOutputPath(options.output, formatName(options.format), pid,
                             formatExtension(options.format));
}

bool recordOptionTakesValue(const QString& name) {
    static const QStringList withValue = {"r",           "sampling-rate", "d",      "duration",
                                          "o",           "output",        "python", "rt-priority",
                                          "compression", "max-depth"};
    return withValue.contains(name);
}

} // namespace gilscope::cli
