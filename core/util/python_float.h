#pragma once

#include <cstddef>
#include <string>

namespace gilscope {

// Appends v the way Python's repr(float) writes it: the shortest digits that round-trip,
// in fixed notation for 1e-4 <= |v| < 1e16 ("0.0", "1.5", "1234.0"), else scientific
// with a signed two-digit-minimum exponent ("1e-05", "1.5e+16"). v must be finite.
void appendPythonFloat(std::string& out, double v);

// The same into a buffer with room for kMaxPythonFloatChars; returns the end.
inline constexpr size_t kMaxPythonFloatChars = 32;
char* writePythonFloat(char* out, double v);

} // namespace gilscope
