#pragma once

#include "core/remote/fd_describer.h"
#include "core/remote/pseudo_frames.h"
#include "core/remote/syscall_wait.h"
#include "core/sample/frame_registry.h"

#include <string>
#include <unordered_map>

namespace gilscope::remote {

// The leaf pseudo-frame that says why an off-CPU thread waits (ReadOptions::waitFrames):
// "<lock wait>", "<read TCP 127.0.0.1:5432>", "<poll>", "<sleep>". I/O frames name the fd's
// kind and peer, never its number, so all reads of one connection merge into one frame.
class WaitFrames {
public:
    // `proc`: the target's /proc directory, from its door (outlives this).
    WaitFrames(const target::ProcDir& proc, FrameRegistry& registry)
        // Bounded: the fd describer folds to kinds and peers.
        : fds_(proc), frames_(registry, FdDescriber::kMaxEntries) {}

    // The frame's name for a wait whose descriptor is `target` (empty: unknown or none).
    static std::string frameName(const SyscallWait& wait, std::string_view target);
    // What `wait`'s descriptor is, read now (empty when it has none or cannot be read).
    std::string describeFd(const SyscallWait& wait);
    FrameId frame(const std::string& name) { return frames_.frame(name); }

private:
    FdDescriber fds_;
    PseudoFrames frames_;
};

} // namespace gilscope::remote
