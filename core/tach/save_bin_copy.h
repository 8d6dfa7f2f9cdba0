#pragma once

#include "core/common/error.h"
#include "core/util/atomic_file.h"
#include "core/util/cancel.h"

#include <filesystem>

namespace gilscope {

// Copies a finished `.bin` recording (a RecordingSession's private copy) to dest for
// the user. It goes through AtomicFile, so dest appears whole or not at all and an
// existing dest survives a failure or a cancel. Progress is (bytes copied, file size);
// cancel is checked between chunks.
Status saveBinCopy(const std::filesystem::path& source, const std::filesystem::path& dest,
                   const ProgressCallback& progress = {}, const CancelToken* cancel = nullptr,
                   AtomicFileOptions options = {});

} // namespace gilscope
