#pragma once

// The HTML outputs (--flamegraph, --diff-flamegraph) of the record commands and `replay`,
// made by createRecordingOutput like every other format.

#include "app/commands/output_options.h"
#include "app/commands/record_output.h"

namespace gilscope::cli {

// A --diff-flamegraph baseline is read and checked here, before sampling starts, so a
// baseline that cannot be compared is refused at once.
Result<std::unique_ptr<RecordingOutput>> createHtmlOutput(const OutputOptions& options,
                                                          const RecordingFacts& facts,
                                                          const std::filesystem::path& destination);

} // namespace gilscope::cli
