#pragma once

#include <string>

namespace gilscope::remote {

// Plain-words explanations of why we cannot read a process, each naming a fix.

// Why reading pid failed with errno `err` (EPERM/EACCES/ESRCH/...), for the user.
std::string explainAccessFailure(int pid, int err);

// Predicts whether we may read pid's memory without trying (uid, capability, Yama).
// Empty when nothing stands in the way.
std::string predictAccessProblem(int pid);

bool haveCapSysPtrace();
int yamaPtraceScope(); // -1 when Yama is absent

} // namespace gilscope::remote
