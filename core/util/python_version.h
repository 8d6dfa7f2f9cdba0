#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gilscope {

// A CPython version, e.g. 3.13.0 or 3.14.0a2, as PY_VERSION_HEX encodes it.
struct PythonVersion {
    uint8_t major = 0, minor = 0, micro = 0;
    uint8_t level = 0xf; // 0xa alpha, 0xb beta, 0xc release candidate, 0xf final
    uint8_t serial = 0;

    static PythonVersion fromHex(uint32_t hex) {
        return {static_cast<uint8_t>(hex >> 24), static_cast<uint8_t>(hex >> 16),
                static_cast<uint8_t>(hex >> 8), static_cast<uint8_t>((hex >> 4) & 0xf),
                static_cast<uint8_t>(hex & 0xf)};
    }

    // "3.11.7", "3.14.0a2", "3.15.0rc1".
    std::string str() const;
    // "3.11": when the micro version is not known.
    std::string majorMinor() const;

    auto operator<=>(const PythonVersion&) const = default;
};

// One component of a version ("11" of "3.11"): digits only, range-checked to what
// PY_VERSION_HEX holds (0-255). Names come from the target (file names, command lines), so
// anything else (empty, a sign, "99999999999") is nullopt, never an exception.
std::optional<uint8_t> parseVersionPart(std::string_view digits);

} // namespace gilscope
