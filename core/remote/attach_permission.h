#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gilscope::remote {

// What the explanations below look at: files under /proc and /sys, symbolic links, and
// who we are. systemProcView() reads the real ones; tests give made-up ones so that
// every branch can be checked on any machine.
class ProcView {
public:
    virtual ~ProcView() = default;
    // A file's contents; nullopt when it is absent or unreadable.
    virtual std::optional<std::string> readFile(const std::string& path) const = 0;
    // A symbolic link's target; empty when there is none.
    virtual std::string readLink(const std::string& path) const = 0;
    virtual uint32_t effectiveUid() const = 0;
    virtual std::string userName(uint32_t uid) const = 0;
};
const ProcView& systemProcView();

// Plain-words explanations of why we cannot read a process, each naming a fix.

// Why reading pid failed with errno `err` (EPERM/EACCES/ESRCH/...), for the user.
std::string explainAccessFailure(int pid, int err, const ProcView& proc = systemProcView());

// Predicts whether we may read pid's memory without trying (uid, capability, Yama).
// Empty when nothing stands in the way.
std::string predictAccessProblem(int pid, const ProcView& proc = systemProcView());

bool haveCapSysPtrace(const ProcView& proc = systemProcView());
int yamaPtraceScope(const ProcView& proc = systemProcView()); // -1 when Yama is absent

} // namespace gilscope::remote
