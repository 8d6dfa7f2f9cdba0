#pragma once

// The control socket's `flush`: the output so far, written whole at its destination while
// the recording goes on.

#include "app/commands/record_options.h"
#include "app/commands/recording_output.h"
#include "core/common/error.h"
#include "core/sampler/recording.h"
#include "core/tach/recording_copy.h"

#include <cstdint>
#include <filesystem>

namespace gilscope::cli {

// Between two ticks, a checkpoint of the recording's `.bin` is taken: the output itself
// with --binary (written in place), else the private copy. Any other format is then made
// from that checkpoint as `gilscope replay` makes it, off the sampler's thread, through
// its own AtomicFile: the destination holds the old output or the new one, never a part.
// Returns the samples written.
Result<uint64_t> flushOutput(Recording& recording, RecordingOutput& output, RecordingCopy* copy,
                             const RecordOptions& options, const std::filesystem::path& destination,
                             const StackSource& source);

} // namespace gilscope::cli
