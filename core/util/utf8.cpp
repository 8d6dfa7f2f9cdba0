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

} // namespace gilscope
