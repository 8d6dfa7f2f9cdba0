#pragma once

// Private to AtomicFile: what an output path names, and the files it writes through.

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <cstddef>
#include <filesystem>
#include <sys/types.h>

namespace gilscope {

struct OutputTarget {
    // Regular mode: the file rename() replaces, symlinks followed (it may not exist yet).
    std::filesystem::path path;
    bool existing = false; // path is an existing regular file: keep its owner and mode
    uid_t uid = 0;
    gid_t gid = 0;
    mode_t mode = 0;
    // Direct mode: the destination itself, open for writing (device, FIFO, socket,
    // our stdout or stderr).
    UniqueFd directFd;
};

// "-" is standard output. Fails for a directory or a block device.
Result<OutputTarget> resolveOutputTarget(const std::filesystem::path& destination);

struct TempFile {
    UniqueFd fd;
    std::filesystem::path path;
};
// ".NAME.tmp-<pid>-XXXXXX" beside `target`, created with 0666 minus the umask. Errors
// name `forMessages` (the path the user gave).
Result<TempFile> createTempBeside(const std::filesystem::path& target,
                                  const std::filesystem::path& forMessages);

// An unnamed read-write file in the temporary directory (gone when closed).
Result<UniqueFd> openStagingFile();

// Whether two descriptors name the same open file (device and inode).
bool sameFileAsFd(int a, int b);

} // namespace gilscope
