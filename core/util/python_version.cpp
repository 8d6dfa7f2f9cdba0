#include "core/util/python_version.h"

#include <charconv>

namespace gilscope {

std::string PythonVersion::majorMinor() const {
    return std::to_string(major) + "." + std::to_string(minor);
}

std::string PythonVersion::str() const {
    std::string s = majorMinor() + "." + std::to_string(micro);
    if (level == 0xa) s += "a" + std::to_string(serial);
    if (level == 0xb) s += "b" + std::to_string(serial);
    if (level == 0xc) s += "rc" + std::to_string(serial);
    return s;
}

std::optional<uint8_t> parseVersionPart(std::string_view digits) {
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc{} || end != digits.data() + digits.size() || value > 255)
        return std::nullopt;
    return static_cast<uint8_t>(value);
}

} // namespace gilscope
