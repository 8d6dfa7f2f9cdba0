#include "core/remote/process_scanner.h"

#include "core/remote/attach_permission.h"
#include "core/remote/proc_files.h"
#include "core/remote/python_layout.h"
#include "core/remote/runtime_locator.h"
#include "core/remote/struct_view.h"
#include "core/target/attached_process.h"
#include "core/util/utf8.h"

#include <cctype>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <dirent.h>
#include <exception>
#include <unistd.h>

namespace gilscope {

namespace {

using namespace remote;

std::string basenameOf(std::string_view p) {
    const size_t slash = p.rfind('/');
    return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

// Cheap pre-filter so a scan does not open every binary on the machine: a mapped file
// or the program name mentions python. (Embedders that rename everything are found by
// `inspectProcess`, which always checks the ELF files.)
bool mentionsPython(int pid, const std::optional<std::vector<MapEntry>>& maps,
                    const std::string& commandLine) {
    if (maps) {
        for (const MapEntry& m : *maps)
            if (!m.path.empty() && basenameOf(m.path).find("python") != std::string::npos)
                return true;
        return false;
    }
    const std::string argv0 = commandLine.substr(0, commandLine.find(' '));
    auto comm = readProcFile("/proc/" + std::to_string(pid) + "/comm", 64).value_or("");
    return basenameOf(argv0).find("python") != std::string::npos ||
           comm.find("python") != std::string::npos;
}

std::string versionFromName(const std::string& s) {
    const std::string base = basenameOf(s.substr(0, s.find(' ')));
    const size_t at = base.find("python3.");
    if (at == std::string::npos) return {};
    size_t end = at + 8;
    while (end < base.size() && std::isdigit(static_cast<unsigned char>(base[end])))
        ++end;
    return end > at + 8 ? base.substr(at + 6, end - at - 6) : std::string{};
}

Result<PythonProcessInfo> inspect(int pid, bool requirePythonName) {
    if (pid <= 0 || !processExists(pid))
        return makeError(ErrorKind::ProcessNotFound,
                         "no process with pid " + std::to_string(pid) +
                             " exists (it may have exited); list Python processes with "
                             "'gilscope ps'");
    PythonProcessInfo info;
    info.pid = pid;
    info.uid = readUid(pid).value_or(0);
    info.user = userName(info.uid);
    info.commandLine = readCommandLine(pid);
    info.cpuSeconds = readCpuSeconds(pid).value_or(-1);
    char exe[4096];
    const ssize_t n =
        ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof exe - 1);
    if (n > 0) info.executable = sanitizeUtf8(std::string_view(exe, static_cast<size_t>(n)));

    auto maps = readMaps(pid);
    if (requirePythonName && !mentionsPython(pid, maps, info.commandLine))
        return makeError(ErrorKind::NotPython, "not a Python process");
    if (!maps) {
        if (!processExists(pid)) return makeError(ErrorKind::ProcessNotFound, "process exited");
        // We cannot look inside; say so, and judge by its name.
        const std::string reason = explainAccessFailure(pid, EACCES);
        if (!mentionsPython(pid, maps, info.commandLine))
            return makeError(ErrorKind::PermissionDenied, "cannot tell whether process " +
                                                              std::to_string(pid) +
                                                              " is Python: " + reason);
        if (info.executable.empty())
            info.executable = info.commandLine.substr(0, info.commandLine.find(' '));
        info.version = versionFromName(info.commandLine);
        info.canAttach = false;
        info.reason = reason;
        return info;
    }
    auto door = target::AttachedProcess::open(pid);
    if (!door) return door.error();
    auto loc = locateRuntime(**door);
    if (!loc) return loc.error();
    RemoteMemory mem(pid);
    uint64_t word = 0;
    info.canAttach = mem.readValue(loc->runtimeAddr, word);
    if (!info.canAttach) {
        if (mem.lastErrno() == ESRCH)
            return makeError(ErrorKind::ProcessNotFound, "process exited");
        info.reason = explainAccessFailure(pid, mem.lastErrno());
    } else {
        refineVersionFromMemory(*loc, mem);
    }
    if (loc->microKnown)
        info.version = PythonVersion::fromHex(loc->versionHex).str();
    else if (loc->versionHex)
        info.version = PythonVersion::fromHex(loc->versionHex).majorMinor();
    // 3.13+: the runtime's _Py_DebugOffsets says whether it is free-threaded ("3.13.15t",
    // as its python3.13t is named), which the name alone could not prove.
    uint8_t head[24];
    if (info.canAttach && !info.version.empty() && ((loc->versionHex >> 16) & 0xff) >= 13 &&
        mem.read(loc->runtimeAddr, head, sizeof head) && std::memcmp(head, "xdebugpy", 8) == 0 &&
        StructView(head, sizeof head).field<uint64_t>(16) != 0)
        info.version += 't';
    return info;
}

// One process is one job: whatever its names or memory make a parser throw becomes
// that process's error, and the scan goes on to the next one.
Result<PythonProcessInfo> inspectGuarded(int pid, bool requirePythonName) {
    try {
        return inspect(pid, requirePythonName);
    } catch (const std::exception& e) {
        return makeError(ErrorKind::Internal,
                         "cannot inspect process " + std::to_string(pid) + ": " + e.what());
    } catch (...) {
        return makeError(ErrorKind::Internal, "cannot inspect process " + std::to_string(pid));
    }
}

} // namespace

Result<PythonProcessInfo> inspectProcess(int pid) {
    return inspectGuarded(pid, false);
}

Result<PythonProcessInfo> inspectPythonCandidate(int pid) {
    return inspect(pid, true);
}

std::vector<int> listProcessIds() {
    std::vector<int> pids;
    DIR* dir = ::opendir("/proc");
    if (!dir) return pids;
    while (dirent* e = ::readdir(dir)) {
        int pid = 0;
        const char* end = e->d_name + std::char_traits<char>::length(e->d_name);
        if (std::from_chars(e->d_name, end, pid).ptr == end && pid > 0) pids.push_back(pid);
    }
    ::closedir(dir);
    std::sort(pids.begin(), pids.end());
    return pids;
}

std::vector<PythonProcessInfo> scanPythonProcesses() {
    std::vector<PythonProcessInfo> found;
    const int self = ::getpid();
    for (int pid : listProcessIds()) {
        if (pid == self) continue;
        auto info = inspectGuarded(pid, true);
        if (info) found.push_back(std::move(*info));
    }
    return found;
}

} // namespace gilscope
