#include "core/remote/exec_watch.h"

#include "core/remote/proc_files.h"
#include "core/util/proc_stat.h"

#include <fcntl.h>

#include <unistd.h>

namespace gilscope::remote {

std::optional<int> parentPid(int pid) {
    const auto stat = readProcFile("/proc/" + std::to_string(pid) + "/stat", 4096);
    if (!stat) return std::nullopt;
    const auto ppid = procStatField(*stat, 4);
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
    const auto code = procStatField(*stat, 26), stack = procStatField(*stat, 28);
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
