#include "core/remote/exec_watch.h"

#include "core/remote/proc_files.h"

#include <fcntl.h>

#include <charconv>
#include <unistd.h>

namespace gilscope::remote {

namespace {

// Field `n` (1-based, as proc(5) numbers them) of /proc/PID/stat, counted after the
// command name, which may itself hold spaces and parentheses.
std::optional<uint64_t> statField(const std::string& stat, int n) {
    size_t pos = stat.rfind(')');
    if (pos == std::string::npos) return std::nullopt;
    ++pos;
    for (int field = 3; pos < stat.size(); ++field) {
        while (pos < stat.size() && stat[pos] == ' ')
            ++pos;
        const size_t end = std::min(stat.find(' ', pos), stat.size());
        if (field == n) {
            uint64_t v = 0;
            if (std::from_chars(stat.data() + pos, stat.data() + end, v).ec != std::errc())
                return std::nullopt;
            return v;
        }
        pos = end;
    }
    return std::nullopt;
}

} // namespace

std::optional<int> parentPid(int pid) {
    const auto stat = readProcFile("/proc/" + std::to_string(pid) + "/stat", 4096);
    if (!stat) return std::nullopt;
    const auto ppid = statField(*stat, 4);
    if (!ppid) return std::nullopt;
    return static_cast<int>(*ppid);
}

ExecWatch::ExecWatch(int pid)
    : pid_(pid), attached_(processImage(pid)),
      mem_(::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC)) {
}

bool ExecWatch::imageGone(uint64_t mappedAddress) const {
    if (!mem_) return false;
    char byte = 0;
    // 0 bytes: the image this file was opened on has no users left. An error (an address
    // not mapped, say) tells nothing.
    return ::pread(mem_.get(), &byte, 1, off_t(mappedAddress)) == 0;
}

std::optional<ProcessImage> processImage(int pid) {
    const std::string proc = "/proc/" + std::to_string(pid);
    const auto stat = readProcFile(proc + "/stat", 4096);
    if (!stat) return std::nullopt;
    const auto code = statField(*stat, 26), stack = statField(*stat, 28);
    if (!code || !stack) return std::nullopt;
    char buf[4096];
    const ssize_t n = ::readlink((proc + "/exe").c_str(), buf, sizeof buf);
    if (n < 0) return std::nullopt;
    return ProcessImage{std::string(buf, static_cast<size_t>(n)), *code, *stack};
}

bool ExecWatch::execed(std::string* running) const {
    if (!attached_) return false;
    const auto now = processImage(pid_);
    if (!now || *now == *attached_) return false;
    if (running) *running = now->exe;
    return true;
}

} // namespace gilscope::remote
