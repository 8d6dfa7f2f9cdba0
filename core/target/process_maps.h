#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope::target {

class AttachedProcess;

// One line of /proc/PID/maps.
struct MapEntry {
    uint64_t start = 0, end = 0, offset = 0;
    uint64_t inode = 0;
    uint32_t devMajor = 0, devMinor = 0;
    std::string perms; // "r-xp"
    std::string path;  // may be empty, "[heap]", or end in " (deleted)"
};

std::vector<MapEntry> parseMaps(std::string_view text);

// The file behind one of the target's mappings (its libpython, the libraries native stacks
// unwind through), for reading its ELF: the mapped file itself through map_files (root
// only), else the same name in the target's root as the target may open it, accepted only
// when it has the inode mapped. Never a file of this machine's.
Result<UniqueFd> openMappedFile(const AttachedProcess& process, const MapEntry& mapping);

} // namespace gilscope::target
