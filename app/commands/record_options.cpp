#include "app/commands/record_options.h"

#include "app/commands/cli_arguments.h"
#include "app/commands/output_formats.h"
#include "app/commands/transform_options.h"
#include "core/control/control_server.h"
#include "core/pstats/pstats_collector.h"
#include "core/sample/capture_rules.h"
#include "core/sampler/rate_parser.h"

#include <cmath>
#include <cstdio>

namespace gilscope::cli {

namespace {

constexpr double kMaxDurationSec = 1e9;

// --sort, -l/--limit, --no-summary: only with --pstats, as CPython checks.
Status readPstatsOptions(const QCommandLineParser& parser, RecordOptions& o) {
    std::string misplaced;
    for (const char* name : {"sort", "limit", "no-summary"})
        if (parser.isSet(name))
            misplaced += std::string(misplaced.empty() ? "" : ", ") + "--" + name;
    if (!misplaced.empty() && o.format != OutputFormat::Pstats)
        return makeError(ErrorKind::BadArguments, "Options " + misplaced +
                                                      " are only valid with --pstats, not --" +
                                                      formatName(o.format));
    if (parser.isSet("sort")) {
        o.sort = parser.value("sort").toStdString();
        pstats::Sort ignored;
        if (!pstats::parseSort(o.sort, ignored))
            return makeError(ErrorKind::BadArguments,
                             "argument --sort: invalid choice: '" + o.sort +
                                 "' (choose from 'nsamples', 'tottime', 'cumtime', 'sample-pct', "
                                 "'cumul-pct', 'nsamples-cumul', 'name')");
    }
    if (parser.isSet("limit")) {
        bool ok = false;
        o.limit = parser.value("limit").toLong(&ok);
        if (!ok)
            return makeError(ErrorKind::BadArguments, "argument -l/--limit: invalid int value: '" +
                                                          parser.value("limit").toStdString() +
                                                          "'");
    }
    o.summary = !parser.isSet("no-summary");
    return {};
}

// --async-aware, --async-mode, and what CPython refuses with them.
Status readAsyncOptions(const QCommandLineParser& parser, RecordOptions& o) {
    const std::string mode = parser.value("async-mode").toStdString();
    if (mode != "running" && mode != "all")
        return makeError(ErrorKind::BadArguments, "argument --async-mode: invalid choice: '" +
                                                      mode + "' (choose from 'running', 'all')");
    if (!parser.isSet("async-aware")) {
        if (mode != "running")
            return makeError(ErrorKind::BadArguments,
                             "--async-mode requires --async-aware to be enabled.");
        return {};
    }
    o.asyncMode = mode == "all" ? AsyncMode::All : AsyncMode::Running;
    const CaptureChoice choice{.asyncMode = o.asyncMode,
                               .native = o.native,
                               .gcFrames = o.gcFrames,
                               .binaryOutput = o.format == OutputFormat::Binary,
                               .mode = o.mode,
                               .allThreads = o.allThreads};
    std::vector<std::string> issues;
    for (AsyncConflict c : asyncConflicts(choice)) {
        static const char* const kNames[] = {"--native", "--no-gc", "--binary",
                                             "--mode=", "--all-threads"};
        issues.push_back(kNames[int(c)]);
        if (c == AsyncConflict::Mode) issues.back() += parser.value("mode").toStdString();
    }
    if (!issues.empty()) return makeError(ErrorKind::BadArguments, asyncConflictMessage(issues));
    return {};
}

} // namespace

ReadOptions RecordOptions::readOptions() const {
    ReadOptions r;
    r.allThreads = allThreads;
    r.opcodes = opcodes;
    r.gc = gcFrames;
    r.native = native;
    r.nativeStacks = nativeStacks; // the eval-loop entries pair Python runs with C frames
    r.maxDepth = maxDepth;
    r.asyncMode = asyncMode;
    // Gecko shows GIL and CPU state, so it samples in CPython's "all" mode whatever
    // --mode says (as CPython does); the other formats use --mode, and only wall mode does
    // not probe /proc per thread (so a recording's mode tells which states it holds).
    // --wait-reasons reads each thread's state to say why it waits.
    r.cpuState = format == OutputFormat::Gecko || mode != ProfilingMode::Wall || waitReasons;
    r.waitFrames = waitReasons;
    r.labels = labels;
    r.mode = format == OutputFormat::Gecko ? ProfilingMode::All : mode;
    return r;
}

namespace {
// --native-stacks=all arrives as this (CommandLine::parse): QCommandLineParser has no
// option whose value is optional.
QList<QCommandLineOption> hiddenRecordOptions() {
    QCommandLineOption all("native-stacks-all");
    all.setFlags(QCommandLineOption::HiddenFromHelp);
    return {all};
}
// --collapsed, --gecko, ...: one per row of the output table, in its order.
QList<QCommandLineOption> outputFormatOptions() {
    QList<QCommandLineOption> options;
    for (const OutputFormatRow& row : outputFormatRows())
        options.append(QCommandLineOption(QString(row.flag), QString(row.help),
                                          row.valueName ? QString(row.valueName) : QString()));
    return options;
}
} // namespace

const QList<QCommandLineOption>& recordOptions() {
    static const QList<QCommandLineOption> table =
        QList<QCommandLineOption>{
            {{"r", "sampling-rate"},
             "Sampling rate: a number of Hz, or with a suffix: 10khz, 10k, 500hz (default 1khz).",
             "RATE",
             "1khz"},
            {{"d", "duration"},
             "Stop recording after SECONDS (default: until the target exits or Ctrl-C).",
             "SECONDS"},
            {{"a", "all-threads"}, "Sample all threads, not only the main thread."},
            {"mode",
             "Sampling mode: wall (all samples), cpu (only threads on CPU), gil (only threads "
             "holding the GIL), exception (only threads with an active exception), all (every "
             "thread with its CPU and GIL state, for `gilscope report --mode ...` later). Default "
             "wall; --gecko always records every thread with its state.",
             "MODE", "wall"},
            {"no-gc", "Do not add artificial <GC> frames where garbage collection runs."},
            {"control",
             "Take commands on a Unix socket while recording, as CPython's profiler does: "
             "enable, disable, ping, status, quit, one per line (`gilscope ctl PATH COMMAND`).",
             "unix:PATH"},
            {"start-disabled",
             "With --control: start with sampling off, until a client sends `enable`."},
            {"wait-reasons",
             "Add a leaf frame saying why each thread off CPU waits: <lock wait>, "
             "<read TCP 10.0.0.5:5432>, <poll>, <sleep>, <child wait> (GIL waits stay as they "
             "are). Off by default, as CPython's outputs have no such frames."},
            labelFromOption(),
            {"opcodes", "Record the executing opcode of each frame (--gecko and --binary)."},
            {"realtime-stats", "Print sampling statistics about once a second."},
            {{"o", "output"},
             "Output file (default: {format}_{pid}.{ext}; inside it if it is a directory).",
             "PATH"},
        } +
        outputFormatOptions() +
        QList<QCommandLineOption>{
            {"sort",
             "--pstats table order: nsamples, tottime, cumtime, sample-pct, cumul-pct, "
             "nsamples-cumul or name (default nsamples).",
             "KEY"},
            {{"l", "limit"}, "--pstats table: at most N rows (default 15).", "N"},
            {"no-summary", "--pstats table: no summary of interesting functions."},
            {"native",
             "Add CPython's <native> frames where C code called back into Python (Python 3.11+)."},
            {"native-stacks",
             "Show the C/C++ frames between the Python frames, named from the libraries' "
             "symbols (--native-stacks=all also keeps CPython's eval loop and call plumbing). "
             "The kernel copies each thread's registers and stack top (perf events), so the "
             "target never stops; with --blocking every thread is stopped instead."},
            {"blocking",
             "Stop every thread of the target (ptrace) while each sample is read, so stacks are "
             "consistent; costs the target a pause per sample."},
            {"subprocesses",
             "Also record every Python process the target starts (directly or through a shell): "
             "one profiler and one output file per process, named like -o with _PID added."},
            {"async-aware",
             "Rebuild stacks from asyncio tasks: each coroutine under its task's name and the "
             "tasks awaiting it (Python 3.14+)."},
            {"async-mode",
             "With --async-aware: running (the task each thread runs now, default) or all (every "
             "task, waiting ones too).",
             "MODE", "running"},
            {"browser", "With --flamegraph, --diff-flamegraph or --heatmap: open the page in a "
                        "browser when done; with --gecko: open the profile in the Firefox "
                        "Profiler."},
            {"live",
             "Show a live top-like table of functions in the terminal (keys: s sort, t threads, "
             "f thread state, p pause, q quit); -o or a format flag also writes that output."},
            {"rt-priority",
             "Run the sampler thread SCHED_FIFO at priority N (1-99; needs root or CAP_SYS_NICE) "
             "so it "
             "wakes on time on a busy machine (default 0: off).",
             "N", "0"},
            {"compression", "Compression of --binary output: auto, zstd or none (default auto).",
             "MODE", "auto"},
            {"max-depth",
             "Keep at most N frames of a stack (default 1536, CPython's bound): a deeper one keeps "
             "its leaf frames and root frames around a '<truncated: K frames>' frame.",
             "N", "1536"},
        } +
        hiddenRecordOptions() + pushOptionTable() + transformOptions();
    return table;
}

QCommandLineOption labelFromOption() {
    return {"label-from",
            "Label each sample with the value of the context variable (contextvars.ContextVar) "
            "named NAME in the sampled thread's current context, as KEY (default: NAME): "
            "`gilscope report --by label:KEY` then splits the time by request, route or "
            "tenant. KEY=FUNC:EXPR reads it from a variable of the innermost frame of the "
            "function FUNC on the stack instead (route=do_GET:self.path, "
            "path=wsgi_app:environ['PATH_INFO']). Repeatable. The label is an outermost frame "
            "<label KEY=VALUE>. `otel` labels samples with OpenTelemetry's current span "
            "(trace_id, span_id, span_name), as Grafana's span profiles select them.",
            "[KEY=]NAME|KEY=FUNC:EXPR|otel"};
}

Result<std::vector<LabelSource>> readLabelSources(const QCommandLineParser& parser) {
    std::vector<LabelSource> out;
    for (const QString& text : parser.values("label-from")) {
        auto sources = parseLabelSources(text.toStdString());
        if (!sources) return sources.error();
        for (const LabelSource& source : sources.value()) {
            for (const LabelSource& other : out)
                if (other.key == source.key)
                    return makeError(ErrorKind::BadArguments,
                                     "--label-from: two labels are called \"" + other.key + "\"");
            out.push_back(source);
        }
    }
    return out;
}

void addRecordOptions(QCommandLineParser& parser) {
    parser.addOptions(recordOptions());
}

bool optionTakesValue(const QList<QCommandLineOption>& options, const QString& name) {
    for (const QCommandLineOption& o : options)
        if (o.names().contains(name)) return !o.valueName().isEmpty();
    return false;
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
    o.native = parser.isSet("native");
    o.subprocesses = parser.isSet("subprocesses");
    o.blocking = parser.isSet("blocking");
    o.nativeStacksAll = parser.isSet("native-stacks-all");
    o.nativeStacks = parser.isSet("native-stacks") || o.nativeStacksAll;
    if (o.nativeStacks && parser.isSet("async-aware"))
        return makeError(ErrorKind::BadArguments,
                         "--native-stacks does not combine with --async-aware: a task's "
                         "coroutines have no C stack of their own");
    o.gcFrames = !parser.isSet("no-gc");
    o.waitReasons = parser.isSet("wait-reasons");
    auto labels = readLabelSources(parser);
    if (!labels) return labels.error();
    o.labels = std::move(*labels);
    if (!o.labels.empty() && parser.isSet("async-aware"))
        return makeError(ErrorKind::BadArguments,
                         "--label-from does not combine with --async-aware yet: a task's "
                         "context is not read");
    o.control = parser.value("control").toStdString();
    o.startDisabled = parser.isSet("start-disabled");
    if (o.startDisabled && o.control.empty())
        return makeError(ErrorKind::BadArguments,
                         "--start-disabled needs --control: nothing could enable sampling");
    if (!o.control.empty())
        if (auto path = control::parseControlUri(o.control); !path) return path.error();
    o.realtimeStats = parser.isSet("realtime-stats");
    const std::string mode = parser.value("mode").toStdString();
    if (mode == "wall")
        o.mode = ProfilingMode::Wall;
    else if (mode == "cpu")
        o.mode = ProfilingMode::Cpu;
    else if (mode == "gil")
        o.mode = ProfilingMode::Gil;
    else if (mode == "exception")
        o.mode = ProfilingMode::Exception;
    else if (mode == "all")
        o.mode = ProfilingMode::All;
    else
        return makeError(ErrorKind::BadArguments,
                         "argument --mode: invalid choice: '" + mode +
                             "' (choose from 'wall', 'cpu', 'gil', 'exception', 'all')");
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
    std::string flags;
    for (const OutputFormatRow& row : outputFormatRows()) {
        flags += std::string(flags.empty() ? "--" : "/--") + row.flag;
        if (parser.isSet(row.flag)) {
            o.format = row.format;
            ++formats;
        }
    }
    if (formats > 1)
        return makeError(ErrorKind::BadArguments,
                         "argument " + flags + ": only one output format may be given");
    if (o.format == OutputFormat::DiffFlamegraph)
        o.baseline = argumentBytes(parser.value("diff-flamegraph"));
    if (auto s = readPstatsOptions(parser, o); !s) return s.error();
    if (auto s = readOutputTransforms(parser, o); !s) return s.error();

    const std::string compression = parser.value("compression").toStdString();
    if (auto c = parseCompression(compression))
        o.compression = *c;
    else
        return makeError(ErrorKind::BadArguments, "argument --compression: invalid choice: '" +
                                                      compression +
                                                      "' (choose from 'auto', 'zstd', 'none')");
    if (parser.isSet("compression") && o.format != OutputFormat::Binary)
        return makeError(ErrorKind::BadArguments, "--compression is only valid with --binary");
    o.browser = parser.isSet("browser");
    if (o.browser && o.format != OutputFormat::Gecko && !opensAsPage(o.format))
        return makeError(ErrorKind::BadArguments, "--browser is only valid with --flamegraph, "
                                                  "--diff-flamegraph, --heatmap or --gecko");
    // As CPython's: --live names each function's top instruction.
    if (o.opcodes && !parser.isSet("live") && o.format != OutputFormat::Gecko &&
        o.format != OutputFormat::Binary && o.format != OutputFormat::Heatmap)
        return makeError(ErrorKind::BadArguments,
                         "--opcodes is only compatible with --live, --gecko, --heatmap, --binary.");
    if (auto s = readAsyncOptions(parser, o); !s) return s.error();
    auto push = readPushOptions(parser);
    if (!push) return push.error();
    o.push = std::move(*push);
    // --push or --live alone record for the server or the screen only; -o or a format flag
    // adds a file.
    o.live = parser.isSet("live");
    o.localOutput = (!o.push.enabled() && !o.live) || formats > 0 || parser.isSet("output");
    if (o.live && o.subprocesses)
        return makeError(ErrorKind::BadArguments,
                         "--subprocesses is incompatible with --live mode.");
    if (o.live && o.realtimeStats)
        return makeError(ErrorKind::BadArguments,
                         "--realtime-stats is incompatible with --live: the view shows them");
    if (o.push.enabled() && o.subprocesses)
        return makeError(ErrorKind::BadArguments,
                         "--push cannot be combined with --subprocesses yet: push each process "
                         "with its own `gilscope attach --push`");
    return o;
}

} // namespace gilscope::cli
