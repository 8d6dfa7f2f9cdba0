#pragma once

#include "core/common/error.h"
#include "core/util/utf8.h"

#include <QString>

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

// Writes a command's whole result to stdout and flushes it: a full disk or a closed
// pipe is an error the caller reports (exit code), not a silently short output.
inline Status writeStdout(const std::string& text) {
    const size_t written = std::fwrite(text.data(), 1, text.size(), stdout);
    if (written != text.size() || std::fflush(stdout) != 0 || std::ferror(stdout))
        return makeError(ErrorKind::Io, "cannot write to standard output");
    return {};
}

inline int failUsage(const QString& message) {
    std::fprintf(stderr, "gilscope: %s\n", message.toLocal8Bit().constData());
    return exitCodeFor(ErrorKind::BadArguments);
}

} // namespace gilscope::cli
