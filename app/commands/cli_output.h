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

inline int failUsage(const QString& message) {
    std::fprintf(stderr, "gilscope: %s\n", message.toLocal8Bit().constData());
    return exitCodeFor(ErrorKind::BadArguments);
}

} // namespace gilscope::cli
