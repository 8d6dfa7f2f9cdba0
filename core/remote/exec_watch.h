#pragma once

#include "core/target/attached_process.h"
#include "core/util/unique_fd.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gilscope::remote {

// What identifies a process's memory image: its executable and where the kernel placed
// its code and stack. A fork shares its parent's until it execs.
struct ProcessImage {
    std::string exe; // /proc/PID/exe
    // /proc/PID/stat startcode and startstack: placed anew by every exec (ASLR).
    uint64_t startCode = 0, startStack = 0;
    bool operator==(const ProcessImage&) const = default;
};
std::optional<ProcessImage> processImage(const target::ProcDir& proc);
std::optional<ProcessImage> processImage(int pid); // before an attach: by its pid now
std::optional<int> parentPid(int pid);             // from /proc/PID/stat

// Notices that a process replaced its program (execve): the pid stays, but the memory
// image is new (and usually the executable), so nothing read from the old one holds.
class ExecWatch {
public:
    explicit ExecWatch(std::shared_ptr<const target::AttachedProcess> door);

    // Whether the process now runs another image than at construction; `running` then
    // names its executable. False when it cannot tell (the process is gone, say).
    bool execed(std::string* running) const;
    // Exact and cheap (one pread), for a regular look: the memory image it was made with
    // is gone (an exec, or the end of the process). /proc/PID/mem, opened at construction,
    // reads that image only: once the process replaced it such a read finds nothing, even
    // where the new image maps the same addresses. False when it cannot tell.
    bool imageGone(uint64_t mappedAddress) const;

private:
    std::shared_ptr<const target::AttachedProcess> door_;
    std::optional<ProcessImage> attached_;
    UniqueFd mem_;
};

} // namespace gilscope::remote
