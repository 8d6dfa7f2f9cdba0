#include "core/common/error.h"

#include <cstdio>
#include <cstdlib>

namespace gilscope {

const char* errorKindName(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::BadArguments:
        return "bad arguments";
    case ErrorKind::ProcessNotFound:
        return "process not found";
    case ErrorKind::NotPython:
        return "not a Python process";
    case ErrorKind::PermissionDenied:
        return "permission denied";
    case ErrorKind::UnsupportedVersion:
        return "unsupported Python version";
    case ErrorKind::ProcessEnded:
        return "process ended";
    case ErrorKind::CorruptFile:
        return "corrupt file";
    case ErrorKind::Io:
        return "I/O error";
    case ErrorKind::DiskFull:
        return "disk full";
    case ErrorKind::Cancelled:
        return "cancelled";
    case ErrorKind::NoSamples:
        return "no samples";
    case ErrorKind::Internal:
        return "internal error";
    }
    return "error";
}

int exitCodeFor(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::BadArguments:
        return 2;
    case ErrorKind::ProcessNotFound:
        return 3;
    case ErrorKind::NotPython:
        return 4;
    case ErrorKind::PermissionDenied:
        return 5;
    case ErrorKind::UnsupportedVersion:
        return 6;
    case ErrorKind::ProcessEnded:
        return 7;
    case ErrorKind::CorruptFile:
        return 8;
    case ErrorKind::Io:
        return 9;
    case ErrorKind::DiskFull:
        return 10;
    case ErrorKind::Cancelled:
        return 130;
    case ErrorKind::NoSamples:
        return 11;
    case ErrorKind::Internal:
        return 1;
    }
    return 1;
}

void resultMisused(const char* what, const std::string& message) {
    std::fprintf(stderr, "gilscope: internal error: Result::%s misused (%s)\n", what,
                 message.c_str());
    std::abort();
}

} // namespace gilscope
