#include "core/gecko/json_writer.h"

#include "core/util/python_float.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace gilscope {

JsonWriter::JsonWriter(Sink sink, size_t bufferBytes)
    : sink_(std::move(sink)), limit_(std::max<size_t>(bufferBytes, 1)),
      buf_(new char[limit_ + kSlack]) {
}

void JsonWriter::rawLarge(std::string_view text) {
    while (!text.empty()) {
        const size_t n = std::min(text.size(), kSlack);
        raw(text.substr(0, n));
        text.remove_prefix(n);
    }
}

void JsonWriter::integer(int64_t v) {
    pos_ = static_cast<size_t>(std::to_chars(buf_.get() + pos_, buf_.get() + pos_ + 24, v).ptr -
                               buf_.get());
    maybeFlush();
}

void JsonWriter::unsignedInteger(uint64_t v) {
    pos_ = static_cast<size_t>(std::to_chars(buf_.get() + pos_, buf_.get() + pos_ + 24, v).ptr -
                               buf_.get());
    maybeFlush();
}

void JsonWriter::number(double v) {
    if (!std::isfinite(v)) {
        if (status_.ok())
            status_ =
                makeError(ErrorKind::Internal,
                          "a profile value is not a finite number; refusing to write invalid JSON");
        return;
    }
    pos_ = static_cast<size_t>(writePythonFloat(buf_.get() + pos_, v) - buf_.get());
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
        raw('"');
        raw(text);
        raw('"');
    } else {
        // nlohmann escapes exactly as Python's ensure_ascii encoder does: \" \\ \b \f \n
        // \r \t, other controls and everything from 0x7F up as lowercase \uXXXX (astral
        // characters as surrogate pairs). "replace" turns invalid UTF-8 into U+FFFD.
        raw(nlohmann::json(std::string(text))
                .dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
    }
}

Status JsonWriter::flush() {
    const size_t n = pos_;
    pos_ = 0;
    if (!status_.ok() || n == 0) return status_;
    status_ = sink_(std::string_view(buf_.get(), n));
    written_ += n;
    return status_;
}

} // namespace gilscope
