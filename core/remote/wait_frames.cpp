#include "core/remote/wait_frames.h"

namespace gilscope::remote {

std::string WaitFrames::frameName(const SyscallWait& wait, std::string_view target) {
    return waitFrameName(wait.reason, wait.name, wait.nr, target);
}

std::string WaitFrames::describeFd(const SyscallWait& wait) {
    if (wait.fd < 0) return {};
    return fds_.describe(wait.fd).value_or("");
}

FrameId WaitFrames::frame(const std::string& name) {
    if (auto it = frames_.find(name); it != frames_.end()) return it->second;
    if (file_ == kNoString) file_ = registry_.internString("~");
    FrameInfo f;
    f.filename = file_;
    f.funcname = registry_.internString(name);
    f.line = f.endLine = 0;
    const FrameId id = registry_.internFrame(f);
    // Bounded: the fd describer folds to kinds and peers; a target with more distinct
    // peers than this re-interns (the registry dedupes), it does not grow the map.
    if (frames_.size() < FdDescriber::kMaxEntries) frames_.emplace(name, id);
    return id;
}

} // namespace gilscope::remote
