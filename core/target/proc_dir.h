#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope::target {

// /proc/PID, opened once as a directory. Every /proc file of the process is read relative
// to it (openat), so once the process has ended every read fails, even when a new process
// got the same pid: the directory belongs to the old one.
class ProcDir {
public:
    static Result<ProcDir> open(int pid);

    // Another handle on the same directory (dup), for a part that keeps its own.
    Result<ProcDir> duplicate() const;

    int pid() const { return pid_; }
    int fd() const { return fd_.get(); }

    // `name` is relative: "stat", "task/1234/comm", "net/tcp". nullopt when it cannot be
    // read (the process ended, no permission); at most `limit` bytes.
    std::optional<std::string> read(const std::string& name, size_t limit = size_t(1) << 24) const;
    std::optional<std::string> readLink(const std::string& name) const;
    // An fd for `name` (O_CLOEXEC is added); invalid with errno set on failure.
    UniqueFd openAt(const std::string& name, int flags) const;
    // The thread ids in task/.
    std::vector<int> tasks() const;

private:
    ProcDir(int pid, UniqueFd fd) : pid_(pid), fd_(std::move(fd)) {}
    int pid_;
    UniqueFd fd_;
};

// The CPUs a /proc/PID/status text's "Cpus_allowed_list:" names ("0-3,8,10-11": 7); 0
// when it has none or it does not parse.
uint32_t countAllowedCpus(std::string_view status);

// Reads a whole file from an open fd, at most `limit` bytes; nullopt on a read error.
std::optional<std::string> readAll(int fd, size_t limit);

} // namespace gilscope::target
