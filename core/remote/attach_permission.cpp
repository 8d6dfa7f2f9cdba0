#include "core/remote/attach_permission.h"

#include "core/remote/proc_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace gilscope::remote {

bool haveCapSysPtrace() {
    auto status = readProcFile("/proc/self/status", 1 << 16);
    if (!status) return false;
    const size_t at = status->find("CapEff:");
    if (at == std::string::npos) return false;
    const uint64_t caps = std::strtoull(status->c_str() + at + 7, nullptr, 16);
    return caps & (uint64_t{1} << 19); // CAP_SYS_PTRACE
}

int yamaPtraceScope() {
    auto v = readProcFile("/proc/sys/kernel/yama/ptrace_scope", 64);
    if (!v || v->empty()) return -1;
    return std::atoi(v->c_str());
}

namespace {

std::string yamaExplanation(int scope) {
    switch (scope) {
    case 1:
        return "kernel.yama.ptrace_scope is 1, so only a parent process may read its children: "
               "run gilscope with sudo, or start the program from gilscope, or allow it with "
               "'sudo sysctl kernel.yama.ptrace_scope=0'";
    case 2:
        return "kernel.yama.ptrace_scope is 2, so only processes with CAP_SYS_PTRACE may read "
               "others: run gilscope with sudo (or give it CAP_SYS_PTRACE)";
    case 3:
        return "kernel.yama.ptrace_scope is 3, so no process may read another until the next "
               "reboot; reboot with a lower setting to profile";
    default:
        return {};
    }
}

std::string otherUser(int pid, uint32_t owner) {
    return "process " + std::to_string(pid) + " belongs to user '" + userName(owner) +
           "' and gilscope runs as '" + userName(::geteuid()) +
           "' without CAP_SYS_PTRACE: run gilscope as '" + userName(owner) +
           "' or with sudo (or grant it: sudo setcap cap_sys_ptrace+ep $(which gilscope))";
}

std::string userNamespace(const std::string& pid) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink("/proc/" + pid + "/ns/user", ec);
    return ec ? std::string() : target.string();
}

std::string lockdownMode() {
    auto v = readProcFile("/sys/kernel/security/lockdown", 256);
    if (!v) return {};
    const size_t open = v->find('['), close = v->find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    const std::string mode = v->substr(open + 1, close - open - 1);
    return mode == "none" ? std::string() : mode;
}

// We have CAP_SYS_PTRACE (root, or setcap) and the kernel still said no: sudo cannot
// help, so name what can.
std::string refusedDespiteCapability(int pid) {
    const std::string who =
        pid == 1 ? "process 1 (the init process)" : "process " + std::to_string(pid);
    std::string msg = "the kernel refused to let gilscope read " + who +
                      " although gilscope already has CAP_SYS_PTRACE, so sudo will not help: ";
    const std::string ours = userNamespace("self"), theirs = userNamespace(std::to_string(pid));
    if (!ours.empty() && !theirs.empty() && ours != theirs)
        return msg + "it runs in another user namespace, where gilscope's capability does not "
                     "count; run gilscope inside that container or namespace";
    if (const std::string mode = lockdownMode(); !mode.empty())
        return msg + "kernel lockdown (" + mode +
               ") forbids reading other processes' memory; boot without lockdown to profile";
    return msg + "a security module (SELinux, AppArmor) or the container runtime protects it; "
                 "check its policy (e.g. the audit log) for a ptrace denial";
}

} // namespace

std::string predictAccessProblem(int pid) {
    if (!processExists(pid)) return "process " + std::to_string(pid) + " has exited";
    if (haveCapSysPtrace()) {
        return yamaPtraceScope() == 3 ? yamaExplanation(3) : std::string{};
    }
    const auto owner = readUid(pid);
    if (owner && *owner != ::geteuid()) return otherUser(pid, *owner);
    const int scope = yamaPtraceScope();
    if (scope >= 2) return yamaExplanation(scope);
    // Scope 1 allows descendants only; we cannot cheaply tell here, the real read will.
    return {};
}

std::string explainAccessFailure(int pid, int err) {
    if (err == ESRCH || !processExists(pid))
        return "process " + std::to_string(pid) + " has exited";
    if (err != EPERM && err != EACCES)
        return "cannot read process " + std::to_string(pid) + ": " + std::strerror(err);
    if (!haveCapSysPtrace()) {
        const auto owner = readUid(pid);
        if (owner && *owner != ::geteuid()) return otherUser(pid, *owner);
    } else if (yamaPtraceScope() != 3) {
        return refusedDespiteCapability(pid);
    }
    const int scope = yamaPtraceScope();
    if (scope >= 1) return yamaExplanation(scope);
    return "the kernel refused to let gilscope read process " + std::to_string(pid) +
           " (it may be setuid or have disabled dumping with PR_SET_DUMPABLE); run gilscope "
           "with sudo";
}

} // namespace gilscope::remote
