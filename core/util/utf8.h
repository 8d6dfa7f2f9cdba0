#pragma once

#include <string>
#include <string_view>

namespace gilscope {

// Replaces every invalid UTF-8 sequence with U+FFFD, the way Python's
// bytes.decode("utf-8", errors="replace") does, so JSON output is always valid.
std::string sanitizeUtf8(std::string_view in);
bool isValidUtf8(std::string_view in);

} // namespace gilscope
