// gilscope attach PID: records a running Python process, as
// `python -m profiling.sampling attach PID` does.
#include "app/commands/cli_output.h"
#include "app/commands/cli_recording.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/record_options.h"
#include "core/remote/live_stack_source.h"

namespace gilscope::cli {

namespace {

int runAttach(const QStringList& args) {
    CommandLine cli("attach", "Attach to a running Python process and record it until it exits, "
                              "-d SECONDS pass, or Ctrl-C.");
    QCommandLineParser& parser = cli.parser();
    addRecordOptions(parser);
    parser.addPositionalArgument("pid", "Process ID to attach to.");
    if (auto done = cli.parse(args)) return *done;

    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return cli.usageErrorSeeHelp("expected exactly one PID");
    bool ok = false;
    const int pid = positional[0].toInt(&ok);
    if (!ok || pid <= 0)
        return cli.usageError("argument pid: invalid int value: '" + positional[0] + "'");

    auto options = readRecordOptions(parser);
    if (!options) return fail(options.error());

    auto source = openLiveProcess(pid, options->readOptions());
    if (!source) return fail(source.error());

    const RecordResult r = recordToOutput(**source, *options);
    return r.exitCode;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(attach, "attach", "Attach to a running Python process and record it",
                          runAttach);

} // namespace gilscope::cli
