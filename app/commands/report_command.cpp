// gilscope report FILE.bin: the top functions (or lines) of a recording, filtered after
// the fact by thread state, thread and time range, or the GIL-contention table.
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/transform_options.h"
#include "core/analysis/counters_json.h"
#include "core/analysis/profile_diff.h"
#include "core/analysis/profile_model.h"
#include "core/analysis/profile_report.h"
#include "core/analysis/scaling_report.h"
#include "core/tach/tach_reader.h"
#include "core/util/utf8.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace gilscope::cli {

namespace {

// "START:END" in seconds from the first sample; either side may be empty.
bool parseRange(const QString& text, double& start, double& end) {
    const int colon = text.indexOf(':');
    if (colon < 0) return false;
    const QString a = text.left(colon).trimmed(), b = text.mid(colon + 1).trimmed();
    bool ok = true;
    start = a.isEmpty() ? 0 : a.toDouble(&ok);
    if (!ok || !std::isfinite(start) || start < 0) return false;
    end = b.isEmpty() ? INFINITY : b.toDouble(&ok);
    if (!ok || std::isnan(end) || end <= start) return false;
    return true;
}

int runReport(const QStringList& args) {
    CommandLine cli("report",
                    "Print the top functions of a .bin recording, like CPython's pstats output.\n"
                    "Percentages are of the samples the filters keep.");
    QCommandLineParser& parser = cli.parser();
    parser.addPositionalArgument("input", "The .bin file.");
    const QCommandLineOption by("by",
                                "Rows per function (default), per source line, or per wait "
                                "(recorded with --wait-reasons: time per lock, socket peer, "
                                "sleep... and the call site that waits there most), or per "
                                "line and instruction (recorded with --opcodes: LOAD_ATTR vs "
                                "its specialised forms), or per value of a label (recorded with "
                                "--label-from: time per route, tenant or request, and the "
                                "function most of it is spent in), or per stop-the-world pause "
                                "(free-threaded Python: when, how long, who asked and from "
                                "where, and the time the stopped threads lost).",
                                "function|line|wait|opcode|label:KEY|pause", "function");
    const QCommandLineOption mode(
        "mode",
        "Which thread-samples to count: all (wall clock, default), cpu (on CPU), gil (holding "
        "the GIL), gil-wait (waiting for the GIL), exception, gc, and off CPU: lock, io, poll, "
        "sleep. A free-threaded target's gil and gil-wait are its attached and stopped "
        "threads: python and stopped name them.",
        "mode", "all");
    const QCommandLineOption thread("thread", "Only this thread (OS thread id); repeatable.",
                                    "TID");
    const QCommandLineOption range("range",
                                   "Only samples in [START, END) seconds from the first "
                                   "sample; either may be left out (\"2:\", \":1.5\").",
                                   "START:END");
    const QCommandLineOption sort("sort",
                                  "Sort by own samples (default), total, name or file. "
                                  "(Tachyon's nsamples, tottime, cumtime, cumul-pct also work.)",
                                  "key", "own");
    const QCommandLineOption limit(QStringList{"l", "limit"}, "Rows to print (0: all; default 15).",
                                   "N", "15");
    const QCommandLineOption json("json", "Print JSON instead of a table.");
    const QCommandLineOption contention(
        "gil-contention",
        "For the ticks in which some thread waited for the GIL: what the GIL holder ran.");
    const QCommandLineOption lockContention(
        "lock-contention", "For the ticks in which some thread waited on a lock: what the threads "
                           "on a CPU ran (needs a recording with wait reasons).");
    const QCommandLineOption scaling(
        "scaling", "Why the threads do not run at once: how many ran Python at a time, and each "
                   "function's time split by what its threads did (ran Python, ran C, were "
                   "stopped by a pause or waited for the GIL, on a lock, on I/O, slept).");
    parser.addOptions(
        {by, mode, thread, range, sort, limit, json, contention, lockContention, scaling});
    parser.addOptions(transformOptions());
    if (auto done = cli.parse(args)) return *done;
    if (parser.positionalArguments().size() != 1)
        return cli.usageErrorSeeHelp("expected one input file");

    auto transforms = readTransforms(parser);
    if (!transforms) return cli.usageError(QString::fromStdString(transforms.error().message));
    ReportOptions options;
    const QString byValue = parser.value(by);
    if (byValue == "line")
        options.by = ReportBy::Line;
    else if (byValue == "wait")
        options.by = ReportBy::Wait;
    else if (byValue == "opcode")
        options.by = ReportBy::Opcode;
    else if (byValue.startsWith("label:") && byValue.size() > 6) {
        options.by = ReportBy::Label;
        options.labelKey = byValue.mid(6).toStdString();
    } else if (byValue != "function" && byValue != "pause")
        return cli.usageError(
            "--by must be function, line, wait, opcode, label:KEY or pause, not \"" + byValue +
            "\"");
    const bool pauses = byValue == "pause";
    if ((pauses || parser.isSet(scaling)) &&
        (parser.isSet(mode) || parser.isSet(contention) || parser.isSet(lockContention)))
        return cli.usageError(QString(pauses ? "--by pause" : "--scaling") +
                              " splits the samples by state itself: it takes no --mode or "
                              "contention view");
    if (pauses && parser.isSet(scaling))
        return cli.usageError("--by pause and --scaling are two reports: ask for one");
    if (auto s = parseReportSort(parser.value(sort).toStdString()))
        options.sort = *s;
    else
        return cli.usageError("--sort must be own, total, name or file, not \"" +
                              parser.value(sort) + "\"");
    bool ok = false;
    const int n = parser.value(limit).toInt(&ok);
    if (!ok || n < 0) return cli.usageError("-l needs a count >= 0");
    options.limit = static_cast<size_t>(n);

    ProfileFilter filter;
    const auto state = parseStateFilter(parser.value(mode).toStdString());
    if (!state || isContention(*state))
        return cli.usageError("--mode must be all, cpu, gil, gil-wait, exception, gc, lock, io, "
                              "poll or sleep, not \"" +
                              parser.value(mode) + "\"");
    filter.state = *state;
    if (parser.isSet(contention) && parser.isSet(lockContention))
        return cli.usageError("--gil-contention and --lock-contention cannot be combined");
    for (const auto& [option, view] : {std::pair{&contention, StateFilter::GilContention},
                                       std::pair{&lockContention, StateFilter::LockContention}}) {
        if (!parser.isSet(*option)) continue;
        if (parser.isSet(mode))
            return cli.usageError("--" + option->names().first() +
                                  " and --mode cannot be combined");
        filter.state = view;
    }
    for (const QString& t : parser.values(thread)) {
        const qulonglong tid = t.toULongLong(&ok);
        if (!ok) return cli.usageError("--thread needs a thread id, not \"" + t + "\"");
        filter.threads.push_back(tid);
    }
    double rangeStart = 0, rangeEnd = 0;
    if (parser.isSet(range) && !parseRange(parser.value(range), rangeStart, rangeEnd))
        return cli.usageError("--range needs START:END in seconds with START < END, not \"" +
                              parser.value(range) + "\"");

    auto loaded = loadProfileFile(argumentPath(parser.positionalArguments()[0]));
    if (!loaded) return fail(loaded.error());
    const ProfileModel& model = *loaded->model;

    // The range counts from the first sample, which only the model knows.
    auto all = model.query({});
    if (!all) return fail(all.error());
    if (parser.isSet(range)) {
        filter.hasRange = true;
        const uint64_t origin = (*all)->originUs;
        filter.startUs = origin + static_cast<uint64_t>(std::llround(rangeStart * 1e6));
        filter.endUs = std::isinf(rangeEnd)
                           ? UINT64_MAX
                           : origin + static_cast<uint64_t>(std::llround(rangeEnd * 1e6));
    }
    for (uint64_t tid : filter.threads) {
        bool known = false;
        for (const ProfileThread& t : (*all)->threads)
            known = known || t.threadId == tid;
        if (!known) {
            std::string list;
            for (const ProfileThread& t : (*all)->threads)
                list += (list.empty() ? "" : ", ") + std::to_string(t.threadId) +
                        (t.name.empty() ? "" : " \"" + escapeForDisplay(t.name) + "\"");
            return fail(makeError(ErrorKind::BadArguments,
                                  "report: thread " + std::to_string(tid) +
                                      " is not in the recording (threads: " + list + ")"));
        }
    }
    if (pauses) {
        auto report = pauseReport(model, filter, options.limit);
        if (!report) return fail(report.error());
        if (parser.isSet(json))
            std::printf("%s\n", pauseJson(*report).dump(2).c_str());
        else
            std::printf("%s", pauseText(*report).c_str());
        return 0;
    }
    if (parser.isSet(scaling)) {
        auto report = scalingReport(model, filter, options.limit);
        if (!report) return fail(report.error());
        if (parser.isSet(json))
            std::printf("%s\n", scalingJson(*report).dump(2).c_str());
        else
            std::printf("%s", scalingText(*report).c_str());
        return 0;
    }
    auto queried = model.query(filter);
    if (!queried) return fail(queried.error());
    auto shown = applyTransformOptions({*queried}, *transforms);
    if (!shown) return fail(shown.error());
    const std::shared_ptr<const ProfileSnapshot> snap = shown->front();
    options.pythonMinor = loaded->info.pythonMajor == 3 ? loaded->info.pythonMinor : 0;
    const auto rows = reportRows(*snap, options);
    if (options.by == ReportBy::Opcode && rows.empty() && snap->matchedSamples > 0)
        return fail(makeError(ErrorKind::NoSamples,
                              "report --by opcode: the recording holds no instructions (record "
                              "with --opcodes, Python 3.11+ names the specialised forms)"));
    // A state the recording never read matches nothing: say so, and which it holds.
    const int recordedMode = loaded->info.mode.value_or(-1);
    const int minor = loaded->info.pythonMajor == 3 ? loaded->info.pythonMinor : 0;
    const bool noGil = loaded->info.freeThreaded;
    const std::string unavailable =
        stateFilterUnavailable(filter.state, recordedMode, minor, noGil);
    std::vector<std::string> held;
    for (StateFilter st : kAllStateFilters)
        if (stateFilterUnavailable(st, recordedMode, minor, noGil).empty())
            held.emplace_back(stateFilterName(st));
    if (parser.isSet(json)) {
        auto j = reportJson(*snap, rows, options);
        j["recorded_states"] = held;
        if (!transforms->empty()) {
            j["transforms"] = nlohmann::ordered_json::array();
            for (const CallTransform& t : *transforms)
                j["transforms"].push_back(transformLabel(t));
            j["transform_dropped"] = snap->transformDropped;
        }
        if (!unavailable.empty()) j["unavailable"] = unavailable;
        // The process around the stacks, over the same range.
        const uint64_t from = filter.hasRange ? filter.startUs : 0;
        const uint64_t to = filter.hasRange ? filter.endUs : UINT64_MAX;
        j["counters"] = countersJson(loaded->counters, (*all)->originUs, from, to);
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        if (!transforms->empty())
            std::printf("Transforms: %s\n", escapeForDisplay(transformsLabel(*transforms)).c_str());
        std::printf("%s", reportText(*snap, rows, options).c_str());
        if (!unavailable.empty()) {
            std::string list;
            for (const std::string& h : held)
                list += (list.empty() ? "" : ", ") + h;
            const std::string option = isContention(filter.state)
                                           ? "--" + std::string(stateFilterName(filter.state))
                                           : "--mode " + std::string(stateFilterName(filter.state));
            std::printf("Note: %s cannot match this recording: %s. It holds: %s.\n", option.c_str(),
                        unavailable.c_str(), list.c_str());
        }
    }
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(report, "report",
                          "Print the top functions of a .bin recording, filtered by state, "
                          "thread or time",
                          runReport);

} // namespace gilscope::cli
