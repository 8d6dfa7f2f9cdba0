// gilscope ps [--json]: lists the Python processes on this machine.
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "core/remote/process_scanner.h"
#include "core/util/utf8.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace gilscope::cli {

namespace {

int runPs(const QStringList& args) {
    CommandLine cli("ps", "List running Python processes.");
    QCommandLineParser& parser = cli.parser();
    const QCommandLineOption json("json", "Print JSON instead of a table.");
    parser.addOption(json);
    if (auto done = cli.parse(args)) return *done;
    if (!parser.positionalArguments().isEmpty()) return cli.usageErrorSeeHelp("takes no arguments");

    const auto processes = scanPythonProcesses();
    if (parser.isSet(json)) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& p : processes)
            j.push_back({{"pid", p.pid},
                         {"uid", p.uid},
                         {"user", p.user},
                         {"version", p.version},
                         {"executable", p.executable},
                         {"command_line", p.commandLine},
                         {"can_attach", p.canAttach},
                         {"reason", p.reason}});
        // Every string is sanitized already; `replace` keeps a missed one from throwing.
        std::printf("%s\n",
                    j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
        return 0;
    }
    std::printf("%-8s %-10s %-9s %-6s %s\n", "PID", "USER", "PYTHON", "ATTACH", "COMMAND");
    // One line per process: a newline inside a command line must not start another.
    for (const auto& p : processes) {
        std::printf("%-8d %-10s %-9s %-6s %s\n", p.pid, escapeForDisplay(p.user).c_str(),
                    p.version.empty() ? "?" : p.version.c_str(), p.canAttach ? "yes" : "no",
                    escapeForDisplay(p.commandLine).c_str());
        if (!p.canAttach) std::printf("%8s why not: %s\n", "", escapeForDisplay(p.reason).c_str());
    }
    return 0;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(ps, "ps", "List running Python processes", runPs);

} // namespace gilscope::cli
