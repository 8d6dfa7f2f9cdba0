#pragma once

#include "core/target/process_maps.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope::remote {

// Small, robust readers for /proc. Every reader tolerates a process that vanishes
// (returns nullopt / empty) and bytes that are not UTF-8.

std::optional<std::string> readProcFile(const std::string& path, size_t limit = 1 << 24);

using target::MapEntry;

// Parses /proc/PID/maps; nullopt when the process is gone or unreadable.
std::optional<std::vector<MapEntry>> readMaps(int pid);

// Arguments of /proc/PID/cmdline joined by spaces, as valid UTF-8.
std::string readCommandLine(int pid);

// Real uid from /proc/PID/status ("Uid:" first field).
std::optional<uint32_t> readUid(int pid);
// The same from the text of a status file.
std::optional<uint32_t> uidFromStatus(std::string_view status);

std::string userName(uint32_t uid);

// CPU time (user + system) the process has used so far, in seconds, from /proc/PID/stat.
std::optional<double> readCpuSeconds(int pid);

// When the process started, in seconds since the epoch (from /proc/PID/stat's start time
// after boot and /proc/stat's boot time); nullopt when it is gone.
std::optional<double> readStartTime(int pid);

bool processExists(int pid);

// Thread ids from /proc/PID/task.
std::vector<int> listTasks(int pid);

} // namespace gilscope::remote
