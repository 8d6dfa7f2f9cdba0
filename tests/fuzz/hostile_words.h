#pragma once

// Memory a fuzzer builds for the remote readers: each word from the input becomes raw
// bytes, a pointer back into the region, a pointer to one of the named types, or a small
// number (a count, a size, an offset), so the input makes trees, cycles and lies of every
// size. The types get their tp_name (a pointer at 24 to the name, kept in the type's last
// 32 bytes).
#include "tests/unit/remote/fake_memory.h"

#include <cstdint>
#include <cstring>
#include <span>

namespace gilscope::test {

inline uint64_t inputWord(const uint8_t* data, size_t size, size_t at) {
    uint64_t v = 0;
    for (size_t b = 0; b < 8; ++b)
        v |= uint64_t(data[(at + b) % size]) << (8 * b);
    return v;
}

struct HostileTypes {
    uint64_t base = 0, size = 64; // type t lies at base + size * t
    std::span<const char* const> names;
};

inline void fillHostileWords(FakeMemory& mem, uint64_t base, size_t len, const uint8_t* data,
                             size_t size, const HostileTypes& types, uint64_t smallBound) {
    uint8_t* region = mem.map(base, len);
    for (size_t i = 0; i + 8 <= len; i += 8) {
        uint64_t v = inputWord(data, size, i);
        switch (v & 3) {
        case 1:
            v = base + ((v >> 2) % len & ~uint64_t{7});
            break;
        case 2:
            v = types.base + types.size * ((v >> 2) % types.names.size());
            break;
        case 3:
            v = (v >> 2) % smallBound;
            break;
        default:
            break;
        }
        std::memcpy(region + i, &v, 8);
    }
    uint8_t* typeBytes = mem.map(types.base, types.size * types.names.size());
    for (size_t t = 0; t < types.names.size(); ++t) {
        uint8_t* type = typeBytes + types.size * t;
        const uint64_t name = types.base + types.size * t + types.size - 32;
        std::memcpy(type + 24, &name, 8);
        std::strncpy(reinterpret_cast<char*>(type + types.size - 32), types.names[t], 31);
    }
}

} // namespace gilscope::test
