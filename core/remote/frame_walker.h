#pragma once

#include "core/remote/legacy_walker.h"
#include "core/remote/modern_walker.h"
#include "core/remote/walk_context.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace gilscope::remote {

// Walks one thread's Python frames, leaf first, out of the target's memory: one walker
// over one memory interface (WalkContext), chosen once per process by its layout.
// ModernWalker reads 3.11+'s datastack chunks, LegacyWalker 3.8-3.10's heap frame
// objects. Both count a walk only when it provably reached the thread's base; this
// facade adds what applies to either: the depth cut and the read-ahead plan.
class FrameWalker {
public:
    static constexpr size_t kMaxWalk = kMaxFrameWalk;
    // Root-side frames a cut stack keeps below its <truncated: N frames> marker.
    static constexpr size_t kRootFramesKept = 16;
    using Prefetch = WalkPrefetch;

    FrameWalker(ProcessMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
                CodeCache& codes, bool opcodes);
    // The walkers keep a reference to the context: a walker stays where it was made.
    FrameWalker(const FrameWalker&) = delete;
    FrameWalker& operator=(const FrameWalker&) = delete;

    // `tstate` is a local copy of the PyThreadState at `tstateAddr`. Appends frames to
    // `out`. Returns false on a torn/invalid read, with the reason in why().
    // ahead: this thread's read-ahead state (used, then updated for next time).
    bool walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out, Prefetch& ahead);

    // 3.11+: ranges to read ahead, in the same syscall as the thread state, where the last
    // prefetching walk found them: its chunk, the current-frame word of its C-stack
    // cframe (3.11/3.12) and the frames it had to read one by one (entry frames on the C
    // stack, the base frame). A steady stack then costs one syscall. A range is used only
    // when this walk's thread state points at exactly it. Appends to local/remote.
    // Returns how many ranges it appended (none on 3.8-3.10).
    size_t planPrefetch(Prefetch& ahead, std::vector<iovec>& local, std::vector<iovec>& remote);
    // How many of the planned ranges were read completely (they come first-to-last).
    void prefetchArrived(Prefetch& ahead, size_t complete);
    // Marks everything read ahead as unusable (a batch that did not reach the walk).
    static void dropPrefetch(Prefetch& ahead) { ahead.drop(); }

    const std::string& why() const { return ctx_.why; }

    // 3.11+: the frame whose local copy is f. False when its code object cannot be
    // read; `python` false for frames that show nothing (shims, frames being set up).
    bool describe(StructView f, FrameId& id, bool& python);
    // The reads of one sample, shared with the asyncio task reader: whoever starts a
    // sample calls budget().begin().
    SampleBudget& budget() { return ctx_.budget; }
    // 3.11+: end walks at this frame (the running asyncio task's coroutine frame), which
    // must be on the chain; 0 walks to the thread's base as usual.
    void setStopFrame(uint64_t frame);
    // _Py_NoneStruct in the target: 3.13+ entry frames run None (0: not checked).
    void setNoneAddress(uint64_t none);
    // Frames a stack keeps (ReadOptions::maxDepth, at least 3); see cutMiddle.
    void setMaxDepth(size_t frames) { maxDepth_ = std::max<size_t>(frames, 3); }
    // CPython's --native: a "<native>" frame (file "~", line 0) where C code called into
    // Python, i.e. at each eval-loop entry below a Python frame (3.11+ only).
    void setNative(bool on);
    // --native-stacks (3.11+): the walks that follow also note where each eval-loop
    // call's run of frames ends, into `entries` (nullptr: not noted).
    void setEvalEntries(std::vector<EvalEntry>* entries);
    // The walks that follow also note each Python frame's address into `frames`
    // (nullptr: not noted), for reading its variables.
    void setFrameAddresses(std::vector<FrameAddress>* frames) { ctx_.addresses = frames; }

private:
    void cutMiddle(std::vector<FrameId>& out, size_t first);
    ModernWalker* modern() { return std::get_if<ModernWalker>(&walker_); }

    WalkContext ctx_;
    std::variant<ModernWalker, LegacyWalker> walker_;
    size_t maxDepth_ = 1024 + 512;
};

} // namespace gilscope::remote
