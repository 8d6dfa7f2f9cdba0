#pragma once

// Every output format in one table, as CPython's profiler keeps its COLLECTOR_MAP: one row
// per format with its flag, its help, its default file name and the factory that makes
// its sink and, at the end, its file. A new format is one row (and its sink in core/).

#include "app/commands/output_options.h"
#include "app/commands/recording_output.h"

#include <filesystem>
#include <memory>
#include <span>

namespace gilscope::cli {

using OutputMade = Result<std::unique_ptr<RecordingOutput>>;

struct OutputFormatRow {
    OutputFormat format;
    const char* flag;      // --<flag>: "collapsed", "gecko", ...
    const char* help;      // its --help line
    const char* valueName; // the flag's value (--diff-flamegraph BASELINE), or null
    const char* fileStem;  // CPython's default file name: {fileStem}_{pid}.{extension}
    const char* extension; // empty: a folder (--heatmap)
    // Makes the output, and its file (or its temporary file), before sampling starts.
    OutputMade (*create)(const OutputOptions& options, const RecordingFacts& facts,
                         const std::filesystem::path& destination);
};

// Every row, in --help order.
std::span<const OutputFormatRow> outputFormatRows();
const OutputFormatRow& outputFormatRow(OutputFormat format);

} // namespace gilscope::cli
