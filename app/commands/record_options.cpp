#include "app/commands/record_options.h"

#include "app/commands/cli_arguments.h"
#include "app/commands/default_output_path.h"
#include "core/sampling/rate_parser.h"

#include <cmath>

namespace gilscope::cli {

ReadOptions RecordOptions::readOptions() const {
    ReadOptions r;
    r.allThreads = allThreads;
    r.opcodes = opcodes;
    r.gc = true;
    // Gecko shows GIL and CPU state, and `gilscope report` filters a .bin by them after
    // the fact, so both sample in CPython's "all" mode; collapsed stacks use wall mode,
    // which does not probe /proc per thread.
    r.cpuState = format != OutputFormat::Collapsed;
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
        {"rt-priority",
         "Run the sampler thread SCHED_FIFO at priority N (1-99; needs root or CAP_SYS_NICE) so it "
         "wakes on time on a busy machine (default 0: off).",
         "N", "0"},
        {"compression", "Compression of --binary output: auto, zstd or none (default auto).",
         "MODE", "auto"},
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
    static const QStringList withValue = {"r",      "sampling-rate", "d",      "duration",   "o",
                                          "output", "compression",   "python", "rt-priority"};
    return withValue.contains(name);
}

} // namespace gilscope::cli
