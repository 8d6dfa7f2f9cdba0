// gilscope run [-m] TARGET [ARGS...] / gilscope run [options] -- COMMAND [ARGS...]:
// starts the target held before its first line of Python, records it from there,
// and exits with the target's exit code, as `python -m profiling.sampling run` does.
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/cli_recording.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/record_options.h"
#include "core/launch/gated_child.h"

#include <csignal>

namespace gilscope::cli {

namespace {

// run's own options, before the record options in --help.
const QList<QCommandLineOption>& runOptions() {
    static const QList<QCommandLineOption> table{
        {{"m", "module"}, "Run TARGET as a module (like python -m)."},
        {"python", "Interpreter for TARGET (default: python3 on PATH).", "PATH", "python3"},
    };
    return table;
}

// True when the arguments put "--" before any positional argument (COMMAND form).
bool commandForm(const QStringList& args) {
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString& a = args[i];
        if (a == "--") return true;
        if (!a.startsWith('-') || a == "-") return false;
        QString name = a.mid(a.startsWith("--") ? 2 : 1);
        if (name.contains('=')) continue;
        if (optionTakesValue(runOptions(), name) || optionTakesValue(recordOptions(), name))
            ++i; // skip its value
    }
    return false;
}

std::vector<std::string> toStd(const QStringList& list) {
    std::vector<std::string> out;
    for (const QString& s : list)
        out.push_back(argumentBytes(s));
    return out;
}

int runRun(const QStringList& args) {
    CommandLine cli("run", "Run a Python script or module (or, after --, any command that starts "
                           "Python) and record it from its first line. Exits with the target's "
                           "exit code.");
    QCommandLineParser& parser = cli.parser();
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    parser.addOptions(runOptions());
    addRecordOptions(parser);
    parser.addPositionalArgument("target", "Script file or module name; or, after --, a command.",
                                 "[-m] TARGET [ARGS...] | -- COMMAND [ARGS...]");
    if (auto done = cli.parse(args)) return *done;
    // Releasing the startup gate of a command that already exited writes to a pipe
    // nobody reads: that must not kill us before we forward the command's exit code.
    std::signal(SIGPIPE, SIG_IGN);

    auto options = readRecordOptions(parser);
    if (!options) return fail(options.error());

    const QStringList positional = parser.positionalArguments();
    std::vector<std::string> argv;
    if (commandForm(args)) {
        if (parser.isSet("module") || parser.isSet("python"))
            return cli.usageError(
                "-m and --python do not apply to '-- COMMAND'; put them in the command");
        if (positional.isEmpty()) return cli.usageError("expected a command after --");
        argv = toStd(positional);
    } else {
        if (positional.isEmpty())
            return cli.usageError("the following arguments are required: target");
        QStringList cmd{parser.value("python")};
        if (parser.isSet("module")) cmd << "-m";
        cmd << positional;
        argv = toStd(cmd);
    }

    LaunchOptions launch;
    launch.quietOutput = options->live; // the terminal is the view's
    // The program finds its recording's control socket there (gilscope_ctl.py's phases).
    if (!options->control.empty())
        launch.extraEnv.emplace_back("GILSCOPE_CONTROL", options->control);
    auto child = GatedChild::launch(argv, launch);
    if (!child) return fail(child.error());
    GatedChild& target = **child;

    auto source = target.attach(options->readOptions(), [](const std::string& notice) {
        std::fprintf(stderr, "gilscope: %s\n", notice.c_str());
    });
    if (!source) {
        if (target.exitCode()) {
            std::fprintf(stderr, "gilscope: %s\n", source.error().message.c_str());
            return *target.exitCode();
        }
        target.terminate();
        return fail(source.error());
    }
    const int pythonPid = (*source)->pid();

    RecordHooks hooks;
    hooks.afterStart = [&] { target.release(); };
    hooks.targetGone = [&] { return target.exited(); };
    hooks.subprocessRoot = target.pid();
    const RecordResult r = recordToOutput(**source, *options, hooks);

    bool terminatedByUs = false;
    if (r.reason == StopReason::TargetExited) {
        target.waitForExit(); // a wrapper may outlive the interpreter we recorded
    } else if (!target.exited()) {
        terminatedByUs = true;
        if (pythonPid != target.pid()) kill(pythonPid, SIGTERM);
        target.terminate();
    }
    if (r.aborted) return 130;
    if (r.exitCode != 0) return r.exitCode;
    if (terminatedByUs) return r.interrupted ? 130 : 0;
    return target.exitCode().value_or(0);
}

} // namespace

GILSCOPE_REGISTER_COMMAND(run, "run", "Run a Python script, module or command and record it",
                          runRun);

} // namespace gilscope::cli
