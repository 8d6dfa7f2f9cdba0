#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

// Constants of CPython 3.15's Tachyon binary format ("TACH", format version 1, newest
// header layout). See core/tach/README.md for the layout and where it comes from.
namespace gilscope::tach {

inline constexpr uint32_t kMagic = 0x54414348;        // "TACH" as a native u32
inline constexpr uint32_t kMagicSwapped = 0x48434154; // the same, other endianness
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderSize = 64;
inline constexpr size_t kFooterSize = 32;
inline constexpr size_t kRecordHeaderSize = 13; // thread id u64, interpreter id u32, encoding u8
inline constexpr size_t kMaxStackDepth = 256;
inline constexpr size_t kMinFrameEntrySize = 7;
inline constexpr size_t kMaxVarintSize = 10;
inline constexpr size_t kRleBufferSize = 16 * 1024;    // per-thread pending run bytes
inline constexpr size_t kWriteBufferSize = 512 * 1024; // record bytes before compression
inline constexpr int kZstdLevel = 5;

// The format's CPython version: the reader speaks as this version in its messages,
// and the writer stamps it when the recording does not know the target's version.
inline constexpr uint8_t kPythonMajor = 3, kPythonMinor = 15, kPythonMicro = 0;

namespace hdr {
inline constexpr size_t Magic = 0, Version = 4, PyMajor = 8, PyMinor = 9, PyMicro = 10;
inline constexpr size_t StartTime = 12, Interval = 20, SampleCount = 28, ThreadCount = 36;
inline constexpr size_t StringTable = 40, FrameTable = 48, Compression = 56, Config = 60;
} // namespace hdr

namespace ftr {
inline constexpr size_t StringCount = 0, FrameCount = 4, FileSize = 8;
} // namespace ftr

// The optional statistics block between the frame table and the footer.
namespace stats {
inline constexpr size_t Size = 56;
inline constexpr char Magic[8] = {'T', 'A', 'C', 'H', 'S', 'T', 'A', 'T'};
inline constexpr uint32_t Version = 1;
inline constexpr size_t Duration = 0, Rate = 8, ErrorRate = 16, Missed = 24, Present = 32;
inline constexpr size_t MagicOff = 40, VersionOff = 48, SizeOff = 52;
inline constexpr uint32_t HasErrorRate = 1u << 0, HasMissed = 1u << 1;
} // namespace stats

// profiling_config word: mode+1 in bits 0-2, "features known" bit 3, features from bit 4.
inline constexpr uint32_t kConfigModeMask = 7;
inline constexpr uint32_t kConfigFeaturesKnown = 8;
inline constexpr uint32_t kConfigFeaturesShift = 4;
inline constexpr uint32_t kConfigFeaturesMask = 31;

enum class Encoding : uint8_t { Repeat = 0, Full = 1, Suffix = 2, PopPush = 3 };

inline constexpr uint8_t kOpcodeNone = 255;

template <typename T>
T byteSwap(T v) { // std::byteswap is C++23
    if constexpr (sizeof(T) == 8)
        return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
    else if constexpr (sizeof(T) == 4)
        return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
    else if constexpr (sizeof(T) == 2)
        return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
    else
        return v;
}

// Fixed-width fields are stored in the writer's byte order; we write little-endian
// and read either, swapping when the magic says so.
template <typename T>
T loadInt(const uint8_t* p, bool swap) {
    T v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::big) swap = !swap;
    if (swap) v = byteSwap(v);
    return v;
}

inline double loadDouble(const uint8_t* p, bool swap) {
    return std::bit_cast<double>(loadInt<uint64_t>(p, swap));
}

template <typename T>
void storeLe(uint8_t* p, T v) {
    if constexpr (std::endian::native == std::endian::big) v = byteSwap(v);
    std::memcpy(p, &v, sizeof v);
}

} // namespace gilscope::tach
