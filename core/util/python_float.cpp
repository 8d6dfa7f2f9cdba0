#include "core/util/python_float.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace gilscope {

namespace {

// Times in a profile are whole microseconds in ms: v == k / 1000.0. For those, and
// while a double's spacing is far below 0.0005 (|v| < 1e12), the exact decimal of
// k / 1000 is the shortest string that reads back as v, which is what repr() prints.
char* writeMilliFast(char* out, double v) {
    if (!(v > -1e12 && v < 1e12) || v == 0) return nullptr; // 0: keep -0.0 exact
    const double scaled = v * 1000.0;
    const long long k = std::llround(scaled);
    if (static_cast<double>(k) / 1000.0 != v) return nullptr;
    unsigned long long a =
        k < 0 ? static_cast<unsigned long long>(-k) : static_cast<unsigned long long>(k);
    if (k < 0) *out++ = '-';
    out = std::to_chars(out, out + 24, a / 1000).ptr;
    *out++ = '.';
    unsigned frac = static_cast<unsigned>(a % 1000);
    if (frac == 0) {
        *out++ = '0';
        return out;
    }
    char digits[3] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                      static_cast<char>('0' + frac % 10)};
    size_t len = 3;
    while (digits[len - 1] == '0')
        --len;
    std::memcpy(out, digits, len);
    return out + len;
}

} // namespace

char* writePythonFloat(char* out, double v) {
    if (char* end = writeMilliFast(out, v)) return end;
    // std::to_chars in scientific form gives the shortest round-trip digits
    // ("d.ddde+XX"); Python's float_repr_style 'short' then chooses the layout.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const char* p = buf;
    const char* end = res.ptr;
    if (*p == '-') {
        *out++ = '-';
        ++p;
    }
    char digits[32];
    int nDigits = 0;
    const char* q = p;
    for (; q < end && *q != 'e'; ++q)
        if (*q != '.') digits[nDigits++] = *q;
    int exp10 = 0; // value = d.ddd × 10^exp10
    std::from_chars(q + 1 + (q[1] == '+' ? 1 : 0), end, exp10);
    // Trailing zeros can only appear for 0 itself ("0e+00").
    while (nDigits > 1 && digits[nDigits - 1] == '0')
        --nDigits;
    const int decpt = exp10 + 1; // value = 0.ddd × 10^decpt, as Python's dtoa reports

    if (decpt <= -4 || decpt > 16) {
        *out++ = digits[0];
        if (nDigits > 1) {
            *out++ = '.';
            out = std::copy(digits + 1, digits + nDigits, out);
        }
        *out++ = 'e';
        const int e = decpt - 1;
        *out++ = e < 0 ? '-' : '+';
        const int a = e < 0 ? -e : e;
        if (a < 10) *out++ = '0';
        return std::to_chars(out, out + 8, a).ptr;
    }
    if (decpt <= 0) {
        *out++ = '0';
        *out++ = '.';
        out = std::fill_n(out, -decpt, '0');
        return std::copy(digits, digits + nDigits, out);
    }
    if (nDigits <= decpt) {
        out = std::copy(digits, digits + nDigits, out);
        out = std::fill_n(out, decpt - nDigits, '0');
        *out++ = '.';
        *out++ = '0';
        return out;
    }
    out = std::copy(digits, digits + decpt, out);
    *out++ = '.';
    return std::copy(digits + decpt, digits + nDigits, out);
}

void appendPythonFloat(std::string& out, double v) {
    char buf[kMaxPythonFloatChars];
    out.append(buf, writePythonFloat(buf, v));
}

} // namespace gilscope
