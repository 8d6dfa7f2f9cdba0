#pragma once

#include "core/common/error.h"

#include <QString>

#include <cstdio>
#include <string>

namespace gilscope::cli {

// Prints "gilscope: <message>" to stderr and returns the exit code for its kind.
inline int fail(const Error& e) {
    std::fprintf(stderr, "gilscope: %s\n", e.message.c_str());
    return exitCodeFor(e.kind);
}

inline int failUsage(const QString& message) {
    std::fprintf(stderr, "gilscope: %s\n", message.toLocal8Bit().constData());
    return exitCodeFor(ErrorKind::BadArguments);
}

} // namespace gilscope::cli
