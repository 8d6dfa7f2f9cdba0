#pragma once

// What to write and where, spelled as CPython's `python -m profiling.sampling` spells it:
// the format flags, -o, --compression and the --pstats table options. The record
// commands and `replay` choose their output here, so a format names its default file
// the same way in both.

#include "core/analysis/call_transforms.h"
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace gilscope::cli {

enum class OutputFormat {
    Collapsed,
    Gecko,
    Binary,
    Pstats,
    Jsonl,
    Pprof,
    Flamegraph,
    DiffFlamegraph,
    Heatmap
};

// Each format's flag, help, file name and factory: output_formats.h.

// --compression of --binary output; Auto is zstd, as in CPython.
enum class Compression { Auto, Zstd, None };

struct OutputOptions {
    OutputFormat format = OutputFormat::Collapsed;
    Compression compression = Compression::Auto; // --binary only
    std::string output;                          // -o; empty: {format}_{pid}.{ext}
    std::string baseline;                        // --diff-flamegraph BASELINE.bin
    std::string sort = "nsamples";               // --pstats table: --sort, -l/--limit, --no-summary
    long limit = 15;
    bool summary = true;
    TransformStack transforms; // --merge, --focus, ...: the HTML flame graphs only
};

// The flag without its dashes: "collapsed", "gecko", ..., "flamegraph", "diff-flamegraph"
// (its row's).
const char* formatName(OutputFormat f);
// The HTML pages, which --browser opens.
bool isHtmlFormat(OutputFormat f);
// What --browser opens as a file: the page itself, or the heatmap folder's index; false
// for formats it does not open that way.
bool opensAsPage(OutputFormat f);
std::filesystem::path pageToOpen(OutputFormat f, const std::filesystem::path& destination);
const char* compressionName(Compression c); // "auto", "zstd", "none"
std::optional<Compression> parseCompression(std::string_view name);

// CPython's default: {format}_{pid}.{ext}; inside `output` when that is a directory.
// --pstats without -o prints to stdout: the path is then empty. --heatmap writes a folder:
// heatmap_{pid}, or -o itself.
std::filesystem::path outputPath(const OutputOptions& options, int pid);

} // namespace gilscope::cli
