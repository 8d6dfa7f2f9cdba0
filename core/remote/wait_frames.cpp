#include "core/remote/wait_frames.h"

namespace gilscope::remote {

std::string WaitFrames::frameName(const SyscallWait& wait, std::string_view target) {
    return waitFrameName(wait.reason, wait.name, wait.nr, target);
}

std::string WaitFrames::describeFd(const SyscallWait& wait) {
    if (wait.fd < 0) return {};
    return fds_.describe(wait.fd).value_or("");
}

} // namespace gilscope::remote
