#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

namespace gilscope::target {

// A pidfd: the process itself, not its number. It tells whether that process has exited,
// so a read made through the pid (process_vm_readv) can be checked afterwards: if the
// process was still alive after the read, the pid could not have been reused during it.
class PidFd {
public:
    static Result<PidFd> open(int pid);

    // The process has ended (a zombie counts as ended). One poll(2), never blocks.
    bool exited() const;
    int get() const { return fd_.get(); }

private:
    explicit PidFd(UniqueFd fd) : fd_(std::move(fd)) {}
    UniqueFd fd_;
};

} // namespace gilscope::target
