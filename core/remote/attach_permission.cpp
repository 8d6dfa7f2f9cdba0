#include "core/remote/attach_permission.h"

#include "core/remote/proc_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace gilscope::remote {

namespace {

class SystemProcView final : public ProcView {
public:
    std::optional<std::string> readFile(const std::string& path) const override {
        return readProcFile(path, 1 << 16);
    }
    std::string readLink(const std::string& path) const override {
        std::error_code ec;
        const auto target = std::filesystem::read_symlink(path, ec);
        return ec ? std::string() : target.string();
    }
    uint32_t effectiveUid() const override { return ::geteuid(); }
    std::string userName(uint32_t uid) const override { return remote::userName(uid); }
};

std::string procPath(int pid, const char* file) {
    return "/proc/" + std::to_string(pid) + "/" + file;
}

bool exists(const ProcView& proc, int pid) {
    return pid > 0 && proc.readFile(procPath(pid, "status")).has_value();
}

std::optional<uint32_t> ownerOf(const ProcView& proc, int pid) {
    const auto status = proc.readFile(procPath(pid, "status"));
    return status ? uidFromStatus(*status) : std::nullopt;
}

} // namespace

const ProcView& systemProcView() {
    static const SystemProcView view;
    return view;
}

bool haveCapSysPtrace(const ProcView& proc) {
    auto status = proc.readFile("/proc/self/status");
    if (!status) return false;
    const size_t at = status->find("CapEff:");
    if (at == std::string::npos) return false;
    const uint64_t caps = std::strtoull(status->c_str() + at + 7, nullptr, 16);
    return caps & (uint64_t{1} << 19); // CAP_SYS_PTRACE
}

int yamaPtraceScope(const ProcView& proc) {
    auto v = proc.readFile("/proc/sys/kernel/yama/ptrace_scope");
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

std::string otherUser(const ProcView& proc, int pid, uint32_t owner) {
    const std::string name = proc.userName(owner);
    return "process " + std::to_string(pid) + " belongs to user '" + name +
           "' and gilscope runs as '" + proc.userName(proc.effectiveUid()) +
           "' without CAP_SYS_PTRACE: run gilscope as '" + name +
           "' or with sudo (or grant it: sudo setcap cap_sys_ptrace+ep $(which gilscope))";
}

std::string userNamespace(const ProcView& proc, const std::string& pid) {
    return proc.readLink("/proc/" + pid + "/ns/user");
}

std::string lockdownMode(const ProcView& proc) {
    auto v = proc.readFile("/sys/kernel/security/lockdown");
    if (!v) return {};
    const size_t open = v->find('['), close = v->find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    const std::string mode = v->substr(open + 1, close - open - 1);
    return mode == "none" ? std::string() : mode;
}

// We have CAP_SYS_PTRACE (root, or setcap) and the kernel still said no: sudo cannot
// help, so name what can.
std::string refusedDespiteCapability(const ProcView& proc, int pid) {
    const std::string who =
        pid == 1 ? "process 1 (the init process)" : "process " + std::to_string(pid);
    std::string msg = "the kernel refused to let gilscope read " + who +
                      " although gilscope already has CAP_SYS_PTRACE, so sudo will not help: ";
    const std::string ours = userNamespace(proc, "self");
    const std::string theirs = userNamespace(proc, std::to_string(pid));
    if (!ours.empty() && !theirs.empty() && ours != theirs)
        return msg + "it runs in another user namespace, where gilscope's capability does not "
                     "count; run gilscope inside that container or namespace";
    if (const std::string mode = lockdownMode(proc); !mode.empty())
        return msg + "kernel lockdown (" + mode +
               ") forbids reading other processes' memory; boot without lockdown to profile";
    return msg + "a security module (SELinux, AppArmor) or the container runtime protects it; "
                 "check its policy (e.g. the audit log) for a ptrace denial";
}

} // namespace

std::string predictAccessProblem(int pid, const ProcView& proc) {
    if (!exists(proc, pid)) return "process " + std::to_string(pid) + " has exited";
    if (haveCapSysPtrace(proc)) {
        return yamaPtraceScope(proc) == 3 ? yamaExplanation(3) : std::string{};
    }
    const auto owner = ownerOf(proc, pid);
    if (owner && *owner != proc.effectiveUid()) return otherUser(proc, pid, *owner);
    const int scope = yamaPtraceScope(proc);
    if (scope >= 2) return yamaExplanation(scope);
    // Scope 1 allows descendants only; we cannot cheaply tell here, the real read will.
    return {};
}

std::string explainAccessFailure(int pid, int err, const ProcView& proc) {
    if (err == ESRCH || !exists(proc, pid)) return "process " + std::to_string(pid) + " has exited";
    if (err != EPERM && err != EACCES)
        return "cannot read process " + std::to_string(pid) + ": " + std::strerror(err);
    if (!haveCapSysPtrace(proc)) {
        const auto owner = ownerOf(proc, pid);
        if (owner && *owner != proc.effectiveUid()) return otherUser(proc, pid, *owner);
    } else if (yamaPtraceScope(proc) != 3) {
        return refusedDespiteCapability(proc, pid);
    }
    const int scope = yamaPtraceScope(proc);
    if (scope >= 1) return yamaExplanation(scope);
    return "the kernel refused to let gilscope read process " + std::to_string(pid) +
           " (it may be setuid or have disabled dumping with PR_SET_DUMPABLE); run gilscope "
           "with sudo";
}

} // namespace gilscope::remote
