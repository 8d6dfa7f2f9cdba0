#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gilscope::remote {

// Reads immutable Python objects (str, bytes) out of the target, with every length
// capped and every field checked, since the target may be freeing them as we read.
class RemoteObjects {
public:
    RemoteObjects(ProcessMemory& mem, const PythonLayout& layout) : mem_(mem), layout_(layout) {}

    // Longest str read in full; longer ones keep this many characters and end in "…".
    static constexpr size_t kMaxStringChars = 64 * 1024;

    // A str object as UTF-8 (non-compact legacy strings are refused; code names are compact).
    // A string longer than maxChars is cut there and marked with a trailing "…" (U+2026):
    // a name that long still names its frame, and the sample is kept.
    std::optional<std::string> readString(uint64_t addr, size_t maxChars = kMaxStringChars);
    // The same, given the object's first bytes already read (`prefix`): no read at all when
    // they hold its text.
    std::optional<std::string> readString(uint64_t addr, size_t maxChars,
                                          std::span<const uint8_t> prefix);

    // A bytes object's contents.
    std::optional<std::vector<uint8_t>> readBytes(uint64_t addr, size_t maxSize = 1 << 20);

private:
    ProcessMemory& mem_;
    const PythonLayout& layout_;
};

// Decodes `count` code points of width `kind` (1, 2 or 4 bytes) to UTF-8.
std::string decodeUnicodeData(const uint8_t* data, size_t count, unsigned kind);

inline bool plausibleAddress(uint64_t a) {
    return a >= 4096 && a < (uint64_t{1} << 47);
}

} // namespace gilscope::remote
