#pragma once

#include "core/common/error.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace gilscope {

// A small buffered writer of JSON tokens in the exact text CPython's json module
// produces with separators=(",", ":") and ensure_ascii=True. JsonObject and JsonArray
// (below) place the punctuation; this class formats scalars and strings and hands full
// buffers to a sink.
// After the sink fails, further output is dropped and status() keeps the first error.
class JsonWriter {
public:
    using Sink = std::function<Status(std::string_view chunk)>;

    explicit JsonWriter(Sink sink, size_t bufferBytes = 1 << 20);

    void raw(std::string_view text) {
        if (text.size() > kSlack) return rawLarge(text);
        std::memcpy(buf_.get() + pos_, text.data(), text.size());
        pos_ += text.size();
        maybeFlush();
    }
    void raw(char c) {
        buf_[pos_++] = c;
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
    // After every write pos_ < limit_, so kSlack bytes always fit without a check.
    static constexpr size_t kSlack = 4096;
    void maybeFlush() {
        if (pos_ >= limit_) flush();
    }
    void rawLarge(std::string_view text);

    Sink sink_;
    size_t limit_;
    std::unique_ptr<char[]> buf_;
    size_t pos_ = 0;
    uint64_t written_ = 0;
    Status status_;
};

// Scopes that place the punctuation: the opening bracket when made, a comma before
// every member or item but the first, the closing bracket when the scope ends (also on
// an early error return: the caller then discards the output).
class JsonObject {
public:
    explicit JsonObject(JsonWriter& out) : out_(out) { out_.raw('{'); }
    ~JsonObject() { out_.raw('}'); }
    JsonObject(const JsonObject&) = delete;
    JsonObject& operator=(const JsonObject&) = delete;

    // Writes `"name":`; the caller writes the value. name is a literal needing no escapes.
    JsonWriter& key(std::string_view name) {
        if (members_++) out_.raw(',');
        out_.raw('"');
        out_.raw(name);
        out_.raw(std::string_view("\":"));
        return out_;
    }

private:
    JsonWriter& out_;
    uint64_t members_ = 0;
};

class JsonArray {
public:
    explicit JsonArray(JsonWriter& out) : out_(out) { out_.raw('['); }
    ~JsonArray() { out_.raw(']'); }
    JsonArray(const JsonArray&) = delete;
    JsonArray& operator=(const JsonArray&) = delete;

    // Before each item; the caller writes the item.
    JsonWriter& item() {
        if (items_++) out_.raw(',');
        return out_;
    }
    uint64_t size() const { return items_; }

private:
    JsonWriter& out_;
    uint64_t items_ = 0;
};

} // namespace gilscope
