#pragma once

#include <cstddef>
#include <cstdint>

// LEB128 varints and zigzag, as the Tachyon format stores them.
namespace gilscope::tach {

// Appends v to out (which must have room for 10 bytes); returns bytes written.
inline size_t encodeVarint(uint64_t v, uint8_t* out) {
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    out[n++] = static_cast<uint8_t>(v);
    return n;
}

inline uint32_t zigzagEncode(int32_t v) {
    return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}

inline int32_t zigzagDecode(uint32_t z) {
    return static_cast<int32_t>((z >> 1) ^ (~(z & 1) + 1));
}

// Decodes from [p, end). Returns bytes consumed, 0 when the varint is truncated or
// longer than 10 bytes.
inline size_t decodeVarint(const uint8_t* p, const uint8_t* end, uint64_t& out) {
    uint64_t v = 0;
    for (size_t i = 0; i < 10 && p + i < end; ++i) {
        const uint8_t b = p[i];
        v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            out = v;
            return i + 1;
        }
    }
    return 0;
}

// As decodeVarint, but also fails (returns 0) on values above UINT32_MAX.
inline size_t decodeVarint32(const uint8_t* p, const uint8_t* end, uint32_t& out) {
    uint64_t v = 0;
    const size_t n = decodeVarint(p, end, v);
    if (n == 0 || v > UINT32_MAX) return 0;
    out = static_cast<uint32_t>(v);
    return n;
}

} // namespace gilscope::tach
