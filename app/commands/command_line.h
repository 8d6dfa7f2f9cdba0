#pragma once

// The parse, --help and usage-error steps every subcommand shares, so each says the
// same thing the same way: a usage error is "gilscope: CMD: <why>" on stderr and exit
// code 2 (QCommandLineParser::process() would exit 1 on an unknown option), --help
// prints the help on stdout and exits 0.

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <optional>

namespace gilscope::cli {

class CommandLine {
public:
    // `command` is the subcommand's name as typed; adds -h/--help.
    CommandLine(const char* command, const QString& description);

    QCommandLineParser& parser() { return parser_; }

    // An exit code when the command is done already (a bad option, --help); otherwise
    // the options are read and the command goes on.
    std::optional<int> parse(const QStringList& args);

    // "gilscope: CMD: <message>"; returns the exit code of a usage error.
    int usageError(const QString& message) const;
    // The same, pointing at the help: "... <message> (see gilscope CMD --help)".
    int usageErrorSeeHelp(const QString& message) const;

private:
    QString command_;
    QCommandLineParser parser_;
};

} // namespace gilscope::cli
