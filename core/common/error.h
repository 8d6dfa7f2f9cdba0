#pragma once

#include <string>
#include <utility>
#include <variant>

namespace gilscope {

// Expected failures cross module boundaries as values, never as exceptions.
enum class ErrorKind {
    BadArguments,
    ProcessNotFound,
    NotPython,
    PermissionDenied,
    UnsupportedVersion,
    ProcessEnded,
    CorruptFile,
    Io,
    DiskFull,
    Cancelled,
    NoSamples,
    Internal,
};

struct Error {
    ErrorKind kind = ErrorKind::Internal;
    std::string message;
};

inline Error makeError(ErrorKind kind, std::string message) {
    return Error{kind, std::move(message)};
}

const char* errorKindName(ErrorKind kind);

// Process exit code for an error, shared by every CLI subcommand so scripts can tell
// "not found" from "permission denied" without parsing text.
int exitCodeFor(ErrorKind kind);

// The value of an error Result is a bug: it says so on stderr, with the error's
// message, and aborts, in release builds too.
[[noreturn]] void resultMisused(const char* what, const std::string& message);

// A small stand-in for std::expected (C++23), enough for our needs.
template <typename T>
class Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & {
        if (!ok()) resultMisused("value()", std::get<1>(v_).message);
        return std::get<0>(v_);
    }
    const T& value() const& {
        if (!ok()) resultMisused("value()", std::get<1>(v_).message);
        return std::get<0>(v_);
    }
    T&& value() && {
        if (!ok()) resultMisused("value()", std::get<1>(v_).message);
        return std::get<0>(std::move(v_));
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }

    // Of a value: an empty error (tests pass it as a message whatever the outcome).
    const Error& error() const {
        static const Error none;
        return ok() ? none : std::get<1>(v_);
    }

private:
    std::variant<T, Error> v_;
};

template <>
class Result<void> {
public:
    Result() = default;
    Result(Error error) : error_(std::move(error)), ok_(false) {}
    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const Error& error() const { return error_; } // empty when ok

private:
    Error error_;
    bool ok_ = true;
};

using Status = Result<void>;

} // namespace gilscope
