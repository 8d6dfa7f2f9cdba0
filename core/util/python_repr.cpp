#include "core/util/python_repr.h"

#include <cstdio>
#include <string_view>

namespace gilscope {

std::string pythonStrRepr(const std::string& utf8) {
    const bool single = utf8.find('\'') == std::string::npos || utf8.find('"') != std::string::npos;
    const char quote = single ? '\'' : '"';
    std::string out(1, quote);
    for (size_t i = 0; i < utf8.size(); ++i) {
        const auto c = static_cast<unsigned char>(utf8[i]);
        // C1 controls (U+0080..U+009F, UTF-8 C2 80..C2 9F) are escaped as Python does.
        if (c == 0xC2 && i + 1 < utf8.size() && static_cast<unsigned char>(utf8[i + 1]) >= 0x80 &&
            static_cast<unsigned char>(utf8[i + 1]) <= 0x9F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(utf8[++i]));
            out += buf;
            continue;
        }
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c == static_cast<unsigned char>(quote)) {
                out += '\\';
                out += static_cast<char>(c);
            } else if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                out += buf;
            } else {
                out += static_cast<char>(c); // printable, or part of a UTF-8 sequence
            }
        }
    }
    out += quote;
    return out;
}

std::string pythonBytesRepr(const uint8_t* data, size_t n) {
    const std::string_view view(reinterpret_cast<const char*>(data), n);
    const bool single =
        view.find('\'') == std::string_view::npos || view.find('"') != std::string_view::npos;
    const char quote = single ? '\'' : '"';
    std::string out = "b";
    out += quote;
    for (size_t i = 0; i < n; ++i) {
        const uint8_t c = data[i];
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (c == static_cast<uint8_t>(quote)) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += quote;
    return out;
}

std::string decimalFromDigits30(std::vector<uint32_t> digits, bool negative) {
    while (!digits.empty() && digits.back() == 0)
        digits.pop_back();
    if (digits.empty()) return "0";
    // Repeated division by 10^9, most significant digit first: chunks of nine decimals.
    std::vector<uint32_t> chunks;
    while (!digits.empty()) {
        uint64_t rem = 0;
        for (size_t i = digits.size(); i-- > 0;) {
            const uint64_t cur = (rem << 30) | digits[i];
            digits[i] = static_cast<uint32_t>(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        chunks.push_back(static_cast<uint32_t>(rem));
        while (!digits.empty() && digits.back() == 0)
            digits.pop_back();
    }
    std::string out = negative ? "-" : "";
    out += std::to_string(chunks.back());
    for (size_t i = chunks.size() - 1; i-- > 0;) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%09u", chunks[i]);
        out += buf;
    }
    return out;
}

} // namespace gilscope
