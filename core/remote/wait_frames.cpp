#include "core/remote/wait_frames.h"

namespace gilscope::remote {

std::string WaitFrames::frameName(const SyscallWait& wait, std::string_view target) {
    auto with = [&](std::string_view verb) {
        return target.empty() ? "<" + std::string(verb) + ">"
                              : "<" + std::string(verb) + " " + std::string(target) + ">";
    };
    switch (wait.reason) {
    case WaitReason::Lock:
        return "<lock wait>";
    case WaitReason::IoRead:
        return with("read");
    case WaitReason::IoWrite:
        return with("write");
    case WaitReason::Connect:
        return with("connect");
    case WaitReason::Accept:
        return with("accept");
    case WaitReason::Poll:
        return "<poll>";
    case WaitReason::Sleep:
        return "<sleep>";
    case WaitReason::ChildWait:
        return "<child wait>";
    case WaitReason::Other:
        if (!wait.name.empty()) return "<syscall " + std::string(wait.name) + ">";
        return wait.nr < 0 ? std::string("<stopped>") : "<syscall " + std::to_string(wait.nr) + ">";
    case WaitReason::None:
    case WaitReason::Unknown:
        break;
    }
    return "<unknown wait>";
}

std::string WaitFrames::describeFd(const SyscallWait& wait) {
    if (wait.fd < 0) return {};
    return fds_.describe(wait.fd).value_or("");
}

FrameId WaitFrames::frame(const std::string& name) {
    if (auto it = frames_.find(name); it != frames_.end()) return it->second;
    if (file_ == 0) file_ = registry_.internString("~");
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
