#pragma once

#include "core/common/error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace gilscope {

// A small buffered writer of JSON tokens in the exact text CPython's json module
// produces with separators=(",", ":") and ensure_ascii=True. The caller writes the
// punctuation; this class formats scalars and strings and hands full buffers to a sink.
// After the sink fails, further output is dropped and status() keeps the first error.
class JsonWriter {
public:
    using Sink = std::function<Status(std::string_view chunk)>;

    explicit JsonWriter(Sink sink, size_t bufferBytes = 1 << 20);

    void raw(std::string_view text) {
        buf_.append(text);
        maybeFlush();
    }
    void raw(char c) {
        buf_.push_back(c);
        maybeFlush();
    }
    void null() { raw(std::string_view("null")); }
    void boolean(bool v) { raw(v ? std::string_view("true") : std::string_view("false")); }
    void integer(int64_t v);
    void unsignedInteger(uint64_t v);
    // Python repr(float); NaN and infinities are an error (allow_nan=False).
    void number(double v);
    // A JSON string; text must be valid UTF-8 (invalid bytes come out as U+FFFD).
    void string(std::string_view text);

    Status flush();
    const Status& status() const { return status_; }
    uint64_t bytesWritten() const { return written_; }

private:
    void maybeFlush() {
        if (buf_.size() >= limit_) flush();
    }

    Sink sink_;
    std::string buf_;
    size_t limit_;
    uint64_t written_ = 0;
    Status status_;
};

} // namespace gilscope
