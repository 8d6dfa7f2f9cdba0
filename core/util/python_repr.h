#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gilscope {

// Python's repr of a str given as UTF-8: quotes chosen as Python chooses them, backslash,
// quote and control characters (C0, DEL, C1) escaped; other characters kept.
std::string pythonStrRepr(const std::string& utf8);
// Python's repr of bytes: b'...', printable ASCII kept, the rest as \xNN.
std::string pythonBytesRepr(const uint8_t* data, size_t n);
// Decimal text of an int given as little-endian 30-bit digits (CPython's PyLongObject).
std::string decimalFromDigits30(std::vector<uint32_t> digits, bool negative);

} // namespace gilscope
