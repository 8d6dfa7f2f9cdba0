// gilscope diff BASELINE.bin CURRENT.bin: the functions whose share of the samples changed
// most between two recordings, as a table or JSON; --fail-if-grows makes it a CI check.
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/transform_options.h"
#include "core/analysis/profile_diff.h"
#include "core/analysis/profile_model.h"

#include <cmath>
#include <cstdio>

namespace gilscope::cli {

namespace {

// Exit status when a --fail-if-grows limit is exceeded: the check failed, nothing broke
// (docs/cli.md's table of exit codes).
constexpr int kGrewExitCode = 12;

struct GrowthLimit {
    QString function;
    double points = 0;
};

Result<std::shared_ptr<const ProfileSnapshot>> keptSamples(const ProfileFile& f,
                                                           StateFilter state) {
    ProfileFilter filter;
    filter.state = state;
    return f.model->query(filter);
}

int runDiff(const QStringList& args) {
    CommandLine cli("diff", "Compare two .bin recordings: each function's share of its recording's "
                            "samples,\nin the baseline and now, largest changes first (percentage "
                            "points).");
    QCommandLineParser& parser = cli.parser();
    parser.addPositionalArgument("baseline", "The .bin recording to compare against.");
    parser.addPositionalArgument("current", "The .bin recording to compare.");
    const QCommandLineOption mode(
        "mode",
        "Which thread-samples to count on both sides: all (default), cpu, gil, gil-wait, "
        "exception, gc.",
        "mode", "all");
    const QCommandLineOption limit(QStringList{"l", "limit"}, "Rows to print (0: all; default 15).",
                                   "N", "15");
    const QCommandLineOption json("json", "Print JSON instead of a table.");
    const QCommandLineOption failIfGrows(
        "fail-if-grows",
        "Exit with status 12 when FUNC's total share grew by more than PCT percentage points; "
        "repeatable.",
        "FUNC:PCT");
    parser.addOptions({mode, limit, json, failIfGrows});
    parser.addOptions(transformOptions());
    if (auto done = cli.parse(args)) return *done;
    if (parser.positionalArguments().size() != 2)
        return cli.usageErrorSeeHelp("expected a baseline and a current .bin file");

    const auto state = parseStateFilter(parser.value(mode).toStdString());
    if (!state || isContention(*state))
        return cli.usageError("--mode must be all, cpu, gil, gil-wait, exception or gc, not \"" +
                              parser.value(mode) + "\"");
    bool ok = false;
    const int n = parser.value(limit).toInt(&ok);
    if (!ok || n < 0) return cli.usageError("-l needs a count >= 0");
    auto transforms = readTransforms(parser);
    if (!transforms) return cli.usageError(QString::fromStdString(transforms.error().message));
    std::vector<GrowthLimit> limits;
    for (const QString& spec : parser.values(failIfGrows)) {
        const int colon = spec.lastIndexOf(':');
        GrowthLimit g;
        if (colon > 0) {
            g.function = spec.left(colon);
            g.points = spec.mid(colon + 1).toDouble(&ok);
        }
        if (colon <= 0 || !ok || !std::isfinite(g.points) || g.points < 0)
            return cli.usageError("--fail-if-grows needs FUNC:PCT with PCT >= 0, not \"" + spec +
                                  "\"");
        limits.push_back(g);
    }

    const QStringList paths = parser.positionalArguments();
    auto baseline = loadProfileFile(argumentPath(paths[0]));
    if (!baseline) return fail(baseline.error());
    auto current = loadProfileFile(argumentPath(paths[1]));
    if (!current) return fail(current.error());
    if (auto why = incomparableReason(baseline->info.mode, current->info.mode, *state))
        return fail(makeError(ErrorKind::BadArguments, "diff: cannot compare: " + *why));
    auto base = keptSamples(*baseline, *state);
    if (!base) return fail(base.error());
    auto cur = keptSamples(*current, *state);
    if (!cur) return fail(cur.error());
    // The same transforms on both sides, so call paths and shares compare like for like.
    auto reshaped = applyTransformOptions({*base, *cur}, *transforms);
    if (!reshaped) return fail(reshaped.error());
    base = (*reshaped)[0];
    cur = (*reshaped)[1];
    for (const auto& [side, snap] : {std::pair{"baseline", *base}, std::pair{"current", *cur}})
        if (snap->matchedSamples == 0)
            return fail(makeError(ErrorKind::NoSamples, std::string("diff: the ") + side +
                                                            " has no samples in mode " +
                                                            std::string(stateFilterName(*state))));

    const std::vector<DiffRow> all = diffFunctions(**base, **cur);
    std::vector<DiffRow> shown(all.begin(),
                               all.begin() + std::min<size_t>(all.size(), n ? n : all.size()));
    const DiffSide b{paths[0].toStdString(), baseline->info.mode, (*base)->matchedSamples};
    const DiffSide c{paths[1].toStdString(), current->info.mode, (*cur)->matchedSamples};
    const std::string out =
        parser.isSet(json) ? diffJson(b, c, *state, shown).dump(2) + "\n" : diffText(b, c, shown);
    if (auto written = writeStdout(out); !written) return fail(written.error());

    int status = 0;
    for (const GrowthLimit& g : limits) {
        const std::string name = g.function.toStdString();
        bool known = false;
        for (const DiffRow& r : all) {
            if (r.function != name) continue;
            known = true;
            if (r.deltaTotal() > g.points) {
                std::fprintf(stderr,
                             "gilscope: diff: %s grew by %.2f points (%.2f%% -> %.2f%%), more "
                             "than %.2f\n",
                             sanitizeUtf8(name).c_str(), r.deltaTotal(), r.baseTotalPct,
                             r.curTotalPct, g.points);
                status = kGrewExitCode;
            }
        }
        // A misspelt name must not pass a CI check silently.
        if (!known)
            return fail(makeError(ErrorKind::BadArguments, "diff: --fail-if-grows: no function \"" +
                                                               name + "\" in either recording"));
    }
    return status;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(diff, "diff",
                          "Compare two .bin recordings function by function (a CI check with "
                          "--fail-if-grows)",
                          runDiff);

} // namespace gilscope::cli
