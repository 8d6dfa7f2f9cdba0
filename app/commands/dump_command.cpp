// gilscope dump PID [-a] [--locals] [--json]: prints each thread's current Python stack
// once, as `py-spy dump` does. Without -a only the main thread, as CPython does. The
// reading and the layout live in core/snapshot, shared with the window's Snapshot.
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "core/snapshot/process_snapshot.h"
#include "core/snapshot/snapshot_format.h"

#include <cstdio>

namespace gilscope::cli {

namespace {

int runDump(const QStringList& args) {
    CommandLine cli("dump", "Print the current Python stack of a running process once.");
    QCommandLineParser& parser = cli.parser();
    const QCommandLineOption all({"a", "all-threads"}, "Show every thread (default: main thread).");
    const QCommandLineOption json("json", "Print JSON instead of text.");
    const QCommandLineOption opcodes("opcodes", "Include the current opcode of each frame.");
    const QCommandLineOption blocking(
        "blocking", "Stop every thread of the target while its stacks are read (ptrace), for a "
                    "consistent snapshot; they run on as soon as it is taken, on every path.");
    const QCommandLineOption locals(
        "locals", "Show each frame's arguments and local variables, read from the target's "
                  "memory without running its code (str and containers shortened).");
    const QCommandLineOption maxDepth(
        "max-depth",
        "Show at most N frames of a stack (default 1536): a deeper one keeps its leaf frames and "
        "root frames around a '<truncated: K frames>' frame.",
        "N", "1536");
    const QCommandLineOption async(
        "async-aware", "Also show asyncio's tasks (Python 3.14+): each with its coroutines, under "
                       "the task that awaits it.");
    const QCommandLineOption native(
        "native-stacks", "Show the C frames among the Python ones (perf events; with --blocking, "
                         "read from the stopped threads).");
    parser.addOptions({all, json, opcodes, locals, blocking, async, native, maxDepth});
    parser.addPositionalArgument("pid", "Process ID to read.");
    if (auto done = cli.parse(args)) return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return cli.usageErrorSeeHelp("expected exactly one PID");
    bool ok = false;
    const int pid = positional[0].toInt(&ok);
    if (!ok || pid <= 0)
        return cli.usageError("argument pid: invalid int value: '" + positional[0] + "'");

    SnapshotOptions options;
    options.allThreads = parser.isSet(all);
    options.opcodes = parser.isSet(opcodes);
    options.locals = parser.isSet(locals);
    options.blocking = parser.isSet(blocking);
    options.tasks = parser.isSet(async);
    options.nativeStacks = parser.isSet(native);
    const qulonglong depth = parser.value(maxDepth).toULongLong(&ok);
    if (!ok || depth < 3 || depth > (1u << 20))
        return cli.usageError("argument --max-depth: expected a number of frames from 3 to "
                              "1048576, got '" +
                              parser.value(maxDepth) + "'");
    options.maxDepth = depth;
    auto snapshot = takeSnapshot(pid, options);
    if (!snapshot) return fail(snapshot.error());
    if (parser.isSet(json))
        std::printf("%s\n", snapshotJson(*snapshot)
                                .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                                .c_str());
    else
        std::fputs(snapshotText(*snapshot).c_str(), stdout);
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(dump, "dump", "Print the Python stacks of a running process once",
                          runDump);

} // namespace gilscope::cli
