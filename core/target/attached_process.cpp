#include "core/target/attached_process.h"

#include "core/util/proc_stat.h"

#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

namespace gilscope::target {

namespace {

std::optional<double> startTimeOf(const ProcDir& proc) {
    const auto stat = proc.read("stat", 4096);
    UniqueFd systemStat(::open("/proc/stat", O_RDONLY | O_CLOEXEC));
    const auto system = systemStat ? readAll(systemStat.get(), 1 << 16) : std::nullopt;
    if (!stat || !system) return std::nullopt;
    const auto ticks = procStatField(*stat, 22); // starttime, in clock ticks after boot
    const size_t b = system->find("\nbtime ");
    if (!ticks || b == std::string::npos) return std::nullopt;
    uint64_t boot = 0;
    const char* at = system->data() + b + 7;
    if (std::from_chars(at, system->data() + system->size(), boot).ec != std::errc{})
        return std::nullopt;
    return double(boot) + double(*ticks) / double(::sysconf(_SC_CLK_TCK));
}

// AT_RANDOM's address from the auxv (pairs of 64-bit words), and the 16 bytes there.
std::optional<IdentityMark> identityMarkOf(const ProcDir& proc) {
    const auto auxv = proc.read("auxv", 4096);
    if (!auxv) return std::nullopt;
    IdentityMark mark;
    for (size_t at = 0; at + 16 <= auxv->size(); at += 16) {
        uint64_t type = 0, value = 0;
        std::memcpy(&type, auxv->data() + at, 8);
        std::memcpy(&value, auxv->data() + at + 8, 8);
        if (type == AT_NULL) break;
        if (type == AT_RANDOM) mark.addr = value;
    }
    if (mark.addr == 0) return std::nullopt;
    iovec local{mark.bytes.data(), mark.bytes.size()};
    iovec remote{reinterpret_cast<void*>(mark.addr), mark.bytes.size()};
    if (::process_vm_readv(proc.pid(), &local, 1, &remote, 1, 0) != ssize_t(mark.bytes.size()))
        return std::nullopt;
    return mark;
}

} // namespace

AttachedProcess::AttachedProcess(PidFd pidFd, ProcDir proc, TargetFiles files)
    : pidFd_(std::move(pidFd)), proc_(std::move(proc)), files_(std::move(files)),
      startTime_(startTimeOf(proc_)), mark_(identityMarkOf(proc_)) {
}

std::optional<std::vector<MapEntry>> AttachedProcess::maps() const {
    auto text = proc_.read("maps");
    if (!text) return std::nullopt;
    return parseMaps(*text);
}

Result<std::shared_ptr<AttachedProcess>> AttachedProcess::open(int pid) {
    // The pidfd first: it pins the process that has the pid now. What is opened or read
    // after it (the identity mark too) belongs to that process if it is still alive once
    // everything is open.
    auto pidFd = PidFd::open(pid);
    if (!pidFd) return pidFd.error();
    auto proc = ProcDir::open(pid);
    if (!proc) return proc.error();
    auto files = TargetFiles::open(*proc);
    if (!files) return files.error();
    auto door =
        std::make_shared<AttachedProcess>(std::move(*pidFd), std::move(*proc), std::move(*files));
    if (!door->stillAttached())
        return makeError(ErrorKind::ProcessEnded,
                         "process " + std::to_string(pid) + " exited before it could be read");
    return door;
}

std::vector<std::string> AttachedProcess::commandLine() const {
    std::vector<std::string> argv;
    const std::string all = proc_.read("cmdline", 1 << 16).value_or("");
    size_t start = 0;
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i] == '\0') {
            argv.push_back(all.substr(start, i - start));
            start = i + 1;
        }
    if (start < all.size()) argv.push_back(all.substr(start));
    return argv;
}

uint32_t AttachedProcess::allowedCpus() const {
    const auto status = proc_.read("status", 1 << 16);
    return status ? countAllowedCpus(*status) : 0;
}

} // namespace gilscope::target
