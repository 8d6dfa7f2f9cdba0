#pragma once

// A small JSON writer for large pages: numbers and strings appended to one buffer, no
// document tree. Strings are repaired to UTF-8 and '<' is escaped, so the text can sit
// inside an HTML <script> element whatever a function name holds.

#include <cstdint>
#include <string>
#include <string_view>

namespace gilscope::html {

class JsonText {
public:
    JsonText& raw(std::string_view s) {
        out_ += s;
        return *this;
    }
    JsonText& str(std::string_view s);
    JsonText& num(uint64_t n);
    JsonText& num(int64_t n);
    JsonText& num(double x, int decimals = 3);
    // "key": (with the comma before it unless first)
    JsonText& key(std::string_view k, bool first = false);

    std::string& text() { return out_; }

private:
    std::string out_;
};

} // namespace gilscope::html
