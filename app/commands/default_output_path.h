#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace gilscope::cli {

// CPython's output naming: `{format}_{pid}.{ext}` when no -o is given, and inside the
// directory when -o names one; otherwise -o itself.
inline std::filesystem::path defaultOutputPath(const std::filesystem::path& option,
                                               std::string_view format, int pid,
                                               std::string_view ext) {
    const std::string name =
        std::string(format) + "_" + std::to_string(pid) + "." + std::string(ext);
    if (option.empty()) return name;
    std::error_code ec;
    if (std::filesystem::is_directory(option, ec)) return option / name;
    return option;
}

} // namespace gilscope::cli
