#pragma once

#include "core/remote/struct_view.h"
#include "core/remote/walk_context.h"
#include "core/sample/stack_source.h"

#include <span>
#include <sys/uio.h>
#include <vector>

namespace gilscope::remote {

// 3.11+: interpreter frames live in the thread's datastack chunks. The current chunk is
// copied in one read and frames are parsed from the copy; frames elsewhere (generators,
// older chunks, entry frames on the C stack) are read one by one, and the ones read that
// way are read ahead with the next sample's thread state.
class ModernWalker {
public:
    explicit ModernWalker(WalkContext& ctx) : ctx_(ctx), layout_(ctx.layout) {}

    // tstate: a local copy of the thread state. ahead: this thread's read-ahead state
    // (used, then updated for next time). Appends frames to out, leaf first.
    bool walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out, WalkPrefetch& ahead);

    // See FrameWalker::planPrefetch and prefetchArrived.
    size_t planPrefetch(WalkPrefetch& ahead, std::vector<iovec>& local, std::vector<iovec>& remote);
    void prefetchArrived(WalkPrefetch& ahead, size_t complete);

    // The frame whose local copy is f. False when its code object cannot be read;
    // `python` false for frames that show nothing (shims, frames being set up).
    bool describe(StructView f, FrameId& id, bool& python);

    void setStopFrame(uint64_t frame) { stopFrame_ = frame; }
    void setNoneAddress(uint64_t none) { noneAddr_ = none; }
    void setNative(bool on);
    void setEvalEntries(std::vector<EvalEntry>* entries) { entries_ = entries; }

private:
    struct Chunk {
        uint64_t addr = 0;
        std::vector<uint8_t> bytes;
    };

    bool walkChain(std::span<const uint8_t> tstate, std::vector<FrameId>& out);
    // Whether a chain ending at this frame reached the thread's base.
    bool isBase(uint64_t addr, StructView f, uint8_t owner, uint64_t baseFrame) const;
    // Local bytes of the frame at addr, from a copied chunk or a fresh read (empty when
    // it cannot be read).
    StructView frameBytes(uint64_t addr);
    bool loadOlderChunk();
    void pushNative(std::vector<FrameId>& out, size_t first) const;
    void learnPrefetch(uint64_t chunk, uint64_t used, uint64_t cframeWord);
    // Whether the stack's top is read again after the chunk (the thread state's address
    // is known and the layout has datastack_top).
    bool rereadsTop(const WalkPrefetch& pf) const;

    WalkContext& ctx_;
    const PythonLayout& layout_;
    WalkPrefetch* ahead_ = nullptr; // the walk's read-ahead state, while a walk runs
    std::vector<uint64_t> singlesThisWalk_;
    bool native_ = false;
    std::vector<EvalEntry>* entries_ = nullptr;
    bool lastNotStarted_ = false; // the frame describe() last named had not started
    FrameId nativeFrame_;
    uint64_t noneAddr_ = 0;
    uint64_t stopFrame_ = 0;
    std::vector<Chunk> chunks_; // [0] is the current chunk; more are loaded on demand
    size_t chunksUsed_ = 0;
    size_t lastChunk_ = 0;    // the chunk that held the last frame found in one
    uint64_t olderChunk_ = 0; // next older chunk to load, 0 if none
};

} // namespace gilscope::remote
