#pragma once

#include "core/common/error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gilscope {

// A Python process found on this machine, as `gilscope ps` lists it.
struct PythonProcessInfo {
    int pid = 0;
    uint32_t uid = 0;
    std::string user;
    std::string version; // "3.11.7"; empty if unknown
    std::string executable;
    std::string commandLine; // arguments joined by spaces, valid UTF-8
    bool canAttach = false;
    std::string reason;     // why we cannot attach, in plain words; empty when canAttach
    double cpuSeconds = -1; // user + system CPU time used so far; -1 if unreadable
};

// Every Python process visible in /proc. Processes that vanish while we look are skipped.
std::vector<PythonProcessInfo> scanPythonProcesses();

// Every pid in /proc, ascending.
std::vector<int> listProcessIds();

// One process as the scan judges it: one whose name and mapped files never mention
// python is NotPython without opening its binaries. Errors as inspectProcess.
Result<PythonProcessInfo> inspectPythonCandidate(int pid);

// One process. Errors: ProcessNotFound, NotPython (with what the process is).
// A Python process we cannot attach to is NOT an error: canAttach=false and reason say why.
Result<PythonProcessInfo> inspectProcess(int pid);

} // namespace gilscope
