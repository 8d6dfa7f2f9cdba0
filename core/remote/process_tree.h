#pragma once

#include <string>
#include <vector>

namespace gilscope {

// Every live descendant of `pid` (children, grandchildren, ...), read from
// /proc/PID/task/TID/children, or from the parent pids of a /proc scan where the kernel
// has no `children` files. Processes that exit while we look are skipped; the order is
// breadth first.
std::vector<int> descendantPids(int pid);

// What /proc/PID/exe points at, or empty if the process is gone or unreadable; a change
// means the process exec'd something else.
std::string executableOf(int pid);

} // namespace gilscope
