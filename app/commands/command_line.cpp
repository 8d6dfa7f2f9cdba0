#include "app/commands/command_line.h"

#include "app/commands/cli_output.h"

#include <cstdio>

namespace gilscope::cli {

CommandLine::CommandLine(const char* command, const QString& description)
    : command_(QString::fromUtf8(command)) {
    parser_.setApplicationDescription(description);
    parser_.addHelpOption();
}

std::optional<int> CommandLine::parse(const QStringList& given) {
    // --native-stacks=all: an option with an optional value, which QCommandLineParser
    // lacks; spelled as a flag of its own up to "--" (after it, the words are a command's).
    QStringList args = given;
    for (QString& a : args) {
        if (a == QLatin1String("--")) break;
        if (a == QLatin1String("--native-stacks=all")) a = QStringLiteral("--native-stacks-all");
    }
    if (!parser_.parse(args)) return usageErrorSeeHelp(parser_.errorText());
    if (parser_.isSet("help")) {
        std::printf("%s", parser_.helpText().toLocal8Bit().constData());
        return 0;
    }
    return std::nullopt;
}

int CommandLine::usageError(const QString& message) const {
    return failUsage(command_ + ": " + message);
}

int CommandLine::usageErrorSeeHelp(const QString& message) const {
    return usageError(message + " (see gilscope " + command_ + " --help)");
}

} // namespace gilscope::cli
