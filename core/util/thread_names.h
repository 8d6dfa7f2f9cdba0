#pragma once

#include <cstdint>
#include <string>

namespace gilscope {

// The kernel's name of a thread (/proc/PID/task/TID/comm, at most 15 bytes): CPython
// 3.14+ sets it to the threading.Thread's name; older ones leave the process's name.
// Empty when it cannot be read (the thread or process is gone, or not ours to see).
std::string readThreadName(int pid, uint64_t tid);
// /proc/PID/comm, the same for the process (its main thread).
std::string readProcessName(int pid);

} // namespace gilscope
