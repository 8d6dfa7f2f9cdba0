#pragma once

// --heatmap: a folder of HTML pages (core/heatmap) from the analysis model, which takes
// the samples as one more sink. While a live target runs, a thread reads each source file
// the recording names from the target's own filesystem, so the pages have them even when
// the recording ends with the target.

#include "app/commands/recording_output.h"

#include <filesystem>
#include <memory>

namespace gilscope::cli {

// CPython's rule: -o names the folder itself, without a trailing ".html".
std::filesystem::path heatmapFolder(const std::string& output, int pid);

// pid > 0: a live target whose files are read through /proc/PID/root.
Result<std::unique_ptr<RecordingOutput>>
createHeatmapOutput(const std::filesystem::path& destination, const RecordingFacts& facts);

} // namespace gilscope::cli
