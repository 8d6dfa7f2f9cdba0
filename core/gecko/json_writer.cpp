#include "core/gecko/json_writer.h"

#include "core/gecko/python_float.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace gilscope {

JsonWriter::JsonWriter(Sink sink, size_t bufferBytes)
    : sink_(std::move(sink)), limit_(bufferBytes) {
    buf_.reserve(bufferBytes + 4096);
}

void JsonWriter::integer(int64_t v) {
    char tmp[24];
    auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    raw(std::string_view(tmp, static_cast<size_t>(res.ptr - tmp)));
}

void JsonWriter::unsignedInteger(uint64_t v) {
    char tmp[24];
    auto res = std::to_chars(tmp, tmp + sizeof tmp, v);
    raw(std::string_view(tmp, static_cast<size_t>(res.ptr - tmp)));
}

void JsonWriter::number(double v) {
    if (!std::isfinite(v)) {
        if (status_.ok())
            status_ =
                makeError(ErrorKind::Internal,
                          "a profile value is not a finite number; refusing to write invalid JSON");
        return;
    }
    appendPythonFloat(buf_, v);
    maybeFlush();
}

void JsonWriter::string(std::string_view text) {
    // Fast path: printable ASCII needs no escaping.
    bool plain = true;
    for (unsigned char c : text) {
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
            plain = false;
            break;
        }
    }
    if (plain) {
        buf_.push_back('"');
        buf_.append(text);
        buf_.push_back('"');
    } else {
        // nlohmann escapes exactly as Python's ensure_ascii encoder does: \" \\ \b \f \n
        // \r \t, other controls and everything from 0x7F up as lowercase \uXXXX (astral
        // characters as surrogate pairs). "replace" turns invalid UTF-8 into U+FFFD.
        buf_.append(nlohmann::json(std::string(text))
                        .dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
    }
    maybeFlush();
}

Status JsonWriter::flush() {
    if (!status_.ok()) {
        buf_.clear();
        return status_;
    }
    if (buf_.empty()) return status_;
    status_ = sink_(buf_);
    written_ += buf_.size();
    buf_.clear();
    return status_;
}

} // namespace gilscope
