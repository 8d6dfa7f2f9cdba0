#include "core/pstats/marshal_writer.h"

#include <cstring>

namespace gilscope::pstats {

void MarshalWriter::u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
        out_ += static_cast<char>((v >> (8 * i)) & 0xff);
}

void MarshalWriter::tuple(uint32_t size) {
    if (size < 256) {
        out_ += ')'; // TYPE_SMALL_TUPLE
        out_ += static_cast<char>(size);
        return;
    }
    out_ += '(';
    u32(size);
}

void MarshalWriter::str(std::string_view utf8) {
    out_ += 'u'; // TYPE_UNICODE: length, then UTF-8 (callers pass valid UTF-8)
    u32(static_cast<uint32_t>(utf8.size()));
    out_.append(utf8);
}

void MarshalWriter::integer(int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
        out_ += 'i';
        u32(static_cast<uint32_t>(static_cast<int32_t>(v)));
        return;
    }
    // TYPE_LONG: signed count of 15-bit digits, least significant first.
    const bool negative = v < 0;
    uint64_t mag = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    std::string digits;
    int32_t n = 0;
    for (; mag; mag >>= 15, ++n) {
        const auto d = static_cast<uint16_t>(mag & 0x7fff);
        digits += static_cast<char>(d & 0xff);
        digits += static_cast<char>(d >> 8);
    }
    out_ += 'l';
    u32(static_cast<uint32_t>(negative ? -n : n));
    out_ += digits;
}

void MarshalWriter::real(double v) {
    out_ += 'g'; // TYPE_BINARY_FLOAT: little-endian IEEE double
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    for (int i = 0; i < 8; ++i)
        out_ += static_cast<char>((bits >> (8 * i)) & 0xff);
}

} // namespace gilscope::pstats
