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

ExecWatch::ExecWatch(std::shared_ptr<const target::AttachedProcess> door)
    : door_(std::move(door)), attached_(processImage(door_->proc())),
      mem_(door_->proc().openAt("mem", O_RDONLY)) {
}

bool ExecWatch::imageGone(uint64_t mappedAddress) const {
    if (!mem_) return false;
    char byte = 0;
    // 0 bytes: the image this file was opened on has no users left. An error (an address
    // not mapped, say) tells nothing.
    return ::pread(mem_.get(), &byte, 1, off_t(mappedAddress)) == 0;
}

std::optional<ProcessImage> processImage(const target::ProcDir& proc) {
    const auto stat = proc.read("stat", 4096);
    if (!stat) return std::nullopt;
    const auto code = procStatField(*stat, 26), stack = procStatField(*stat, 28);
    if (!code || !stack) return std::nullopt;
    auto exe = proc.readLink("exe");
    if (!exe) return std::nullopt;
    return ProcessImage{std::move(*exe), *code, *stack};
}

std::optional<ProcessImage> processImage(int pid) {
    auto proc = target::ProcDir::open(pid);
    return proc ? processImage(*proc) : std::nullopt;
}

bool ExecWatch::execed(std::string* running) const {
    if (!attached_) return false;
    const auto now = processImage(door_->proc());
    if (!now || *now == *attached_) return false;
    if (running) *running = now->exe;
    return true;
}

} // namespace gilscope::remote
