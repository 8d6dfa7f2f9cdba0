#pragma once

// The HTML outputs (--flamegraph, --diff-flamegraph) of the record commands and `replay`,
// made by their rows of the output table (output_formats.cpp) like every other format.

#include "app/commands/output_options.h"
#include "app/commands/recording_output.h"

namespace gilscope::cli {

// A --diff-flamegraph baseline is read and checked here, before sampling starts, so a
// baseline that cannot be compared is refused at once.
Result<std::unique_ptr<RecordingOutput>> createHtmlOutput(const OutputOptions& options,
                                                          const RecordingFacts& facts,
                                                          const std::filesystem::path& destination);

} // namespace gilscope::cli
