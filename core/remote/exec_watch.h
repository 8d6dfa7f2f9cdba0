#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gilscope::remote {

// Notices that a process replaced its program (execve): the pid stays, but the memory
// image is new (and usually the executable), so nothing read from the old one holds.
class ExecWatch {
public:
    explicit ExecWatch(int pid);

    // Whether the process now runs another image than at construction; `running` then
    // names its executable. False when it cannot tell (the process is gone, say).
    bool execed(std::string* running) const;

private:
    struct Image {
        std::string exe; // /proc/PID/exe
        // /proc/PID/stat startcode and startstack: placed anew by every exec (ASLR).
        uint64_t startCode = 0, startStack = 0;
    };
    static std::optional<Image> read(int pid);

    int pid_;
    std::optional<Image> attached_;
};

} // namespace gilscope::remote
