#include "core/html/json_text.h"

#include "core/util/utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace gilscope::html {

JsonText& JsonText::str(std::string_view s) {
    std::string repaired;
    if (!isValidUtf8(s)) {
        repaired = sanitizeUtf8(s);
        s = repaired;
    }
    out_ += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out_ += '\\';
            out_ += ch;
        } else if (c < 0x20 || c == '<') {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
        } else {
            out_ += ch;
        }
    }
    out_ += '"';
    return *this;
}

JsonText& JsonText::num(uint64_t n) {
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
    return *this;
}

JsonText& JsonText::num(int64_t n) {
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
    return *this;
}

JsonText& JsonText::num(double x, int decimals) {
    if (!std::isfinite(x)) return raw("0");
    char buf[64];
    int len = std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
    // Shortest text: no trailing zeros, no lone point, no "-0".
    if (decimals > 0) {
        while (len > 0 && buf[len - 1] == '0')
            --len;
        if (len > 0 && buf[len - 1] == '.') --len;
    }
    if (len == 2 && buf[0] == '-' && buf[1] == '0') return raw("0");
    out_.append(buf, static_cast<size_t>(len));
    return *this;
}

JsonText& JsonText::key(std::string_view k, bool first) {
    if (!first) out_ += ',';
    str(k);
    out_ += ':';
    return *this;
}

} // namespace gilscope::html
