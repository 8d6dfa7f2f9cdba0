#include "core/util/utf8.h"

#include <cstdint>

namespace gilscope {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if invalid. Also returns, through
// maximalPrefix, how many bytes form the longest valid-looking prefix: Python
// replaces each maximal invalid subpart with one U+FFFD.
size_t validSequence(std::string_view s, size_t i, size_t& maximalPrefix) {
    const auto b0 = static_cast<uint8_t>(s[i]);
    maximalPrefix = 1;
    if (b0 < 0x80) return 1;
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    for (size_t k = 1; k <= need; ++k) {
        if (i + k >= s.size()) return 0;
        const auto b = static_cast<uint8_t>(s[i + k]);
        const uint8_t l = (k == 1) ? lo : 0x80;
        const uint8_t h = (k == 1) ? hi : 0xBF;
        if (b < l || b > h) return 0;
        maximalPrefix = k + 1;
    }
    return need + 1;
}

// The code point of a valid sequence of n bytes at s[i].
char32_t codePoint(std::string_view s, size_t i, size_t n) {
    static constexpr uint8_t kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    char32_t cp = static_cast<uint8_t>(s[i]) & kLeadMask[n];
    for (size_t k = 1; k < n; ++k)
        cp = (cp << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3F);
    return cp;
}

void appendUtf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

void appendHexEscape(std::string& out, unsigned value) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[(value >> 4) & 0xF];
    out += kHex[value & 0xF];
}

} // namespace

bool isValidUtf8(std::string_view in) {
    for (size_t i = 0; i < in.size();) {
        size_t prefix;
        const size_t n = validSequence(in, i, prefix);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string sanitizeUtf8(std::string_view in) {
    if (isValidUtf8(in)) return std::string(in);
    std::string out;
    out.reserve(in.size() + 8);
    for (size_t i = 0; i < in.size();) {
        size_t prefix;
        const size_t n = validSequence(in, i, prefix);
        if (n > 0) {
            out.append(in.substr(i, n));
            i += n;
        } else {
            out.append("\xEF\xBF\xBD");
            i += prefix;
        }
    }
    return out;
}

std::string escapeForDisplay(std::string_view in) {
    const std::string text = sanitizeUtf8(in);
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const auto b = static_cast<uint8_t>(text[i]);
        if (b == '\\') {
            out += "\\\\";
        } else if (b == '\n') {
            out += "\\n";
        } else if (b == '\r') {
            out += "\\r";
        } else if (b == '\t') {
            out += "\\t";
        } else if (b < 0x20 || b == 0x7F) {
            appendHexEscape(out, b);
        } else if (b == 0xC2 && i + 1 < text.size() && static_cast<uint8_t>(text[i + 1]) <= 0x9F) {
            appendHexEscape(out, static_cast<uint8_t>(text[++i])); // C1 control U+0080..U+009F
        } else {
            out += text[i];
        }
    }
    return out;
}

std::u16string decodeUtf8SurrogateEscape(std::string_view bytes) {
    std::u16string out;
    out.reserve(bytes.size());
    for (size_t i = 0; i < bytes.size();) {
        size_t prefix;
        const size_t n = validSequence(bytes, i, prefix);
        if (n == 0) {
            // Byte by byte, as Python does: each byte of an invalid run round-trips.
            out += static_cast<char16_t>(0xDC00 + static_cast<uint8_t>(bytes[i]));
            ++i;
            continue;
        }
        const char32_t cp = codePoint(bytes, i, n);
        if (cp < 0x10000) {
            out += static_cast<char16_t>(cp);
        } else {
            out += static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10));
            out += static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF));
        }
        i += n;
    }
    return out;
}

std::string encodeUtf8SurrogateEscape(std::u16string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char16_t u = text[i];
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < text.size() && text[i + 1] >= 0xDC00 &&
            text[i + 1] <= 0xDFFF) {
            appendUtf8(out, 0x10000 + ((char32_t(u) - 0xD800) << 10) + (text[i + 1] - 0xDC00));
            ++i;
        } else if (u >= 0xDC80 && u <= 0xDCFF) {
            out += static_cast<char>(u - 0xDC00); // an escaped byte
        } else if (u >= 0xD800 && u <= 0xDFFF) {
            out += "\xEF\xBF\xBD";
        } else {
            appendUtf8(out, u);
        }
    }
    return out;
}

} // namespace gilscope
