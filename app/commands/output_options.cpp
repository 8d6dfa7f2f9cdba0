#include "app/commands/output_options.h"

#include "app/commands/heatmap_output.h"
#include "app/commands/output_formats.h"

namespace gilscope::cli {

namespace fs = std::filesystem;

const char* formatName(OutputFormat f) {
    return outputFormatRow(f).flag;
}

bool isHtmlFormat(OutputFormat f) {
    return f == OutputFormat::Flamegraph || f == OutputFormat::DiffFlamegraph;
}

bool opensAsPage(OutputFormat f) {
    return isHtmlFormat(f) || f == OutputFormat::Heatmap;
}

std::filesystem::path pageToOpen(OutputFormat f, const std::filesystem::path& destination) {
    return f == OutputFormat::Heatmap ? destination / "index.html" : destination;
}

const char* compressionName(Compression c) {
    switch (c) {
    case Compression::Auto:
        return "auto";
    case Compression::Zstd:
        return "zstd";
    case Compression::None:
        return "none";
    }
    return "auto";
}

std::optional<Compression> parseCompression(std::string_view name) {
    for (Compression c : {Compression::Auto, Compression::Zstd, Compression::None})
        if (name == compressionName(c)) return c;
    return std::nullopt;
}

fs::path outputPath(const OutputOptions& options, int pid) {
    if (options.format == OutputFormat::Pstats && options.output.empty()) return {};
    if (options.format == OutputFormat::Heatmap) return heatmapFolder(options.output, pid);
    // CPython's naming: {format}_{pid}.{ext} without -o, and inside the directory -o
    // names; otherwise -o itself.
    const OutputFormatRow& row = outputFormatRow(options.format);
    const std::string name =
        std::string(row.fileStem) + "_" + std::to_string(pid) + "." + row.extension;
    if (options.output.empty()) return name;
    const fs::path option(options.output);
    std::error_code ec;
    if (fs::is_directory(option, ec)) return option / name;
    return option;
}

} // namespace gilscope::cli
