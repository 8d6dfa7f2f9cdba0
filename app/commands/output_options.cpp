#include "app/commands/output_options.h"

#include "app/commands/default_output_path.h"

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

const char* formatExtension(OutputFormat f) {
    switch (f) {
    case OutputFormat::Pstats:
        return "pstats";
    case OutputFormat::Jsonl:
        return "jsonl";
    case OutputFormat::Collapsed:
        return "txt";
    case OutputFormat::Gecko:
        return "json";
    case OutputFormat::Binary:
        return "bin";
    }
    return "txt";
}

} // namespace

const char* formatName(OutputFormat f) {
    switch (f) {
    case OutputFormat::Pstats:
        return "pstats";
    case OutputFormat::Jsonl:
        return "jsonl";
    case OutputFormat::Collapsed:
        return "collapsed";
    case OutputFormat::Gecko:
        return "gecko";
    case OutputFormat::Binary:
        return "binary";
    }
    return "collapsed";
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
    return defaultOutputPath(options.output, formatName(options.format), pid,
                             formatExtension(options.format));
}

} // namespace gilscope::cli
