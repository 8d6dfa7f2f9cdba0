#include "app/commands/output_options.h"

#include "app/commands/heatmap_output.h"

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

// CPython's name of each format and the extension of its default file name.
struct FormatNames {
    const char* name;
    const char* extension;
    const char* fileStem = name; // CPython's default file name: {stem}_{pid}.{extension}
};

FormatNames namesOf(OutputFormat f) {
    switch (f) {
    case OutputFormat::Pstats:
        return {"pstats", "pstats"};
    case OutputFormat::Jsonl:
        return {"jsonl", "jsonl"};
    case OutputFormat::Collapsed:
        return {"collapsed", "txt"};
    case OutputFormat::Gecko:
        return {"gecko", "json"};
    case OutputFormat::Binary:
        return {"binary", "bin"};
    case OutputFormat::Pprof: // gzip'd profile.proto, as `go tool pprof` names its files
        return {"pprof", "pb.gz"};
    case OutputFormat::Flamegraph:
        return {"flamegraph", "html"};
    case OutputFormat::DiffFlamegraph:
        return {"diff-flamegraph", "html", "diff_flamegraph"};
    case OutputFormat::Heatmap: // a folder: heatmapFolder() names it
        return {"heatmap", ""};
    }
    return {"collapsed", "txt"};
}

} // namespace

const char* formatName(OutputFormat f) {
    return namesOf(f).name;
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
    const FormatNames names = namesOf(options.format);
    const std::string name =
        std::string(names.fileStem) + "_" + std::to_string(pid) + "." + names.extension;
    if (options.output.empty()) return name;
    const fs::path option(options.output);
    std::error_code ec;
    if (fs::is_directory(option, ec)) return option / name;
    return option;
}

} // namespace gilscope::cli
