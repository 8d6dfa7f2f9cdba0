// gilscope agent --push URL: records every Python process on the host and pushes each
// one's profile to Grafana Pyroscope as its own series (host_agent.h).
#include "app/commands/cli_arguments.h"
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "app/commands/host_agent.h"
#include "app/commands/record_interrupts.h"
#include "app/commands/record_options.h"
#include "core/sampler/rate_parser.h"

namespace gilscope::cli {

namespace {

Result<AgentOptions> readAgentOptions(const QCommandLineParser& parser) {
    AgentOptions o;
    if (!parser.isSet("push"))
        return makeError(ErrorKind::BadArguments, "--push URL is required: where to push");
    auto push = readPushOptions(parser);
    if (!push) return push.error();
    o.push = std::move(*push);
    for (const char* name : {"match", "exclude"}) {
        if (!parser.isSet(name)) continue;
        QRegularExpression re(parser.value(name));
        if (!re.isValid() || re.pattern().isEmpty())
            return makeError(ErrorKind::BadArguments,
                             std::string("argument --") + name +
                                 ": not a regular expression: " + re.errorString().toStdString());
        (std::string(name) == "match" ? o.match : o.exclude) = re;
    }
    auto interval = parseSamplingRate(parser.value("rate").toStdString());
    if (!interval) return interval.error();
    o.intervalUs = *interval;
    o.read.allThreads = true; // a service's work is rarely on its main thread only
    // Quiet services sleep almost always: a process none of whose threads has been on a
    // CPU since its last read is not read again (exact, from each thread's schedstat; the
    // process's CPU clock was tried first and missed bursts shorter than a scheduler tick).
    // Names go out with each push; a new thread is still named at once.
    o.read.stillProcesses = true;
    o.read.threadNameRefreshMs = 10'000;
    auto labels = readLabelSources(parser);
    if (!labels) return labels.error();
    o.read.labels = std::move(*labels);
    const std::string mode = parser.value("mode").toStdString();
    if (mode == "wall")
        o.read.mode = ProfilingMode::Wall;
    else if (mode == "cpu")
        o.read.mode = ProfilingMode::Cpu;
    else if (mode == "gil")
        o.read.mode = ProfilingMode::Gil;
    else
        return makeError(ErrorKind::BadArguments, "argument --mode: invalid choice: '" + mode +
                                                      "' (choose from 'wall', 'cpu', 'gil')");
    o.control = parser.value("control").toStdString();
    o.startDisabled = parser.isSet("start-disabled");
    if (o.startDisabled && o.control.empty())
        return makeError(ErrorKind::BadArguments,
                         "--start-disabled needs --control: nothing could enable sampling");
    bool ok = false;
    o.maxProcesses = parser.value("max-processes").toInt(&ok);
    if (!ok || o.maxProcesses < 1 || o.maxProcesses > 4096)
        return makeError(ErrorKind::BadArguments,
                         "argument --max-processes: expected 1-4096, got '" +
                             parser.value("max-processes").toStdString() + "'");
    return o;
}

int runAgent(const QStringList& args) {
    CommandLine cli("agent", "Record every Python process on this host that may be read, and "
                             "push each one's profile to Grafana Pyroscope as its own series, "
                             "until SIGINT or SIGTERM.");
    QCommandLineParser& parser = cli.parser();
    parser.addOptions(pushOptionTable());
    parser.addOptions({
        {"match", "Record only processes whose command line matches REGEX.", "REGEX"},
        {"exclude", "Do not record processes whose command line matches REGEX.", "REGEX"},
        {{"r", "rate"},
         "Sampling rate per process: Hz, or 1khz, 500hz (default 100).",
         "RATE",
         "100"},
        {"mode", "wall (every thread), cpu (threads on a CPU; default) or gil (the GIL holder).",
         "MODE", "cpu"},
        {"max-processes", "Record at most N processes at once (default 256).", "N", "256"},
        labelFromOption(),
        {"control",
         "Take commands on a Unix socket: enable, disable, ping, status, quit as CPython's "
         "profiler does, flush (push every series now) and snapshot PID (`gilscope ctl`).",
         "unix:PATH"},
        {"start-disabled",
         "With --control: start with sampling off, until a client sends `enable`."},
    });
    if (auto done = cli.parse(args)) return *done;
    if (!parser.positionalArguments().isEmpty()) return cli.usageErrorSeeHelp("takes no arguments");
    auto options = readAgentOptions(parser);
    if (!options) return fail(options.error());
    auto agent = HostAgent::create(std::move(*options));
    if (!agent) return fail(agent.error());
    InterruptGuard interrupts;
    return (*agent)->run([&] { return interrupts.count() > 0; },
                         [&] { return interrupts.count() > 1; });
}

} // namespace

GILSCOPE_REGISTER_COMMAND(agent, "agent",
                          "Record every Python process on this host and push each to Pyroscope",
                          runAgent);

} // namespace gilscope::cli
