#pragma once

#include <cstdint>
#include <optional>
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

// CPU time the process's main thread has run, in ns (/proc/PID/schedstat; a fork starts
// at 0). Empty if the process is gone or the kernel does not say.
std::optional<uint64_t> cpuTimeNs(int pid);

// Whether the process is runnable now ('R' in /proc/PID/stat: on a CPU or waiting for
// one). Empty if it is gone.
std::optional<bool> isRunnable(int pid);

// A fork still running its parent's image is either about to exec (subprocess's child
// runs well under a millisecond of CPU before its execve, and until then it is running
// or waiting for a core) or a worker that never will (multiprocessing's fork runs its
// parent's Python at once). Judged a worker once it has run kForkWorkerCpuNs of CPU, or
// when it has been asleep kForkWorkerAgeMs after it was first seen (a worker that only
// sleeps; a child on its way to execve does not sleep).
inline constexpr uint64_t kForkWorkerCpuNs = 5'000'000;
inline constexpr uint64_t kForkWorkerAgeMs = 2000;
bool forkIsAWorker(std::optional<uint64_t> cpuNs, uint64_t ageMs, bool runnable);

} // namespace gilscope
