// gilscope open FILE.json: shows a Firefox Profiler file in the Firefox Profiler.
#include "app/commands/browser_open.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"

#include <QFileInfo>

namespace gilscope::cli {

namespace {

int runOpen(const QStringList& args) {
    CommandLine cli("open", "Open a Firefox Profiler (Gecko) JSON file in the Firefox Profiler: "
                            "it is served once from 127.0.0.1 to the browser.");
    QCommandLineParser& parser = cli.parser();
    parser.addOption({"profiler",
                      "Address of the Firefox Profiler (default: the window's setting, else "
                      "https://profiler.firefox.com).",
                      "URL"});
    parser.addPositionalArgument("file", "The .json profile (from --gecko or Export).");
    if (auto done = cli.parse(args)) return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) return cli.usageErrorSeeHelp("expected exactly one FILE.json");
    if (!QFileInfo(positional[0]).isFile())
        return cli.usageError("no such file: '" + positional[0] + "'");
    return openInFirefoxProfiler(positional[0], parser.value("profiler"));
}

} // namespace

GILSCOPE_REGISTER_COMMAND(open, "open", "Open a .json profile in the Firefox Profiler", runOpen);

} // namespace gilscope::cli
