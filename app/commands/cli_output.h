#pragma once

#include "core/common/error.h"
#include "core/util/utf8.h"

#include <QCommandLineParser>
#include <QString>

#include <optional>

#include <cstdio>
#include <string>

namespace gilscope::cli {

// Where summaries and "written to" lines go: stdout, unless the output file itself goes
// to stdout (`-o -`, `-o /dev/stdout`), where they would corrupt it.
inline FILE*& messageStreamSlot() {
    static FILE* stream = nullptr;
    return stream;
}
inline FILE* messages() {
    return messageStreamSlot() ? messageStreamSlot() : stdout;
}
inline void sendMessagesToStderr() {
    messageStreamSlot() = stderr;
}

// Prints "gilscope: <message>" to stderr and returns the exit code for its kind. The
// message may quote a file name that is not UTF-8; the terminal gets valid UTF-8.
inline int fail(const Error& e) {
    std::fprintf(stderr, "gilscope: %s\n", sanitizeUtf8(e.message).c_str());
    return exitCodeFor(e.kind);
}

inline int failUsage(const QString& message) {
    std::fprintf(stderr, "gilscope: %s\n", message.toLocal8Bit().constData());
    return exitCodeFor(ErrorKind::BadArguments);
}

// Parses a command's arguments; an exit code when the command is done already (a bad
// option: 2, as for every usage error; --help: 0). QCommandLineParser::process() would
// exit 1 on an unknown option.
inline std::optional<int> parseCommandLine(QCommandLineParser& parser, const QStringList& args,
                                           const char* command) {
    if (!parser.parse(args))
        return failUsage(QString::fromUtf8(command) + ": " + parser.errorText() +
                         " (see gilscope " + QString::fromUtf8(command) + " --help)");
    if (parser.isSet("help")) {
        std::printf("%s", parser.helpText().toLocal8Bit().constData());
        return 0;
    }
    return std::nullopt;
}

} // namespace gilscope::cli
