#pragma once

#include <string_view>

namespace gilscope {

// The last component of a path ("libc.so.6" for "/usr/lib/x86_64-linux-gnu/libc.so.6");
// the whole string when it has no '/'.
inline std::string_view fileName(std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace gilscope
