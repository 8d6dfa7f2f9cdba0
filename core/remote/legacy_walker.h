#pragma once

#include "core/remote/struct_view.h"
#include "core/remote/walk_context.h"

#include <span>
#include <sys/uio.h>
#include <vector>

namespace gilscope::remote {

// 3.8-3.10: PyFrameObjects form a linked list on the heap. The chain seen last time is
// re-read in one call and kept as far as its links still hold (usually all but the
// leaf); frames that are new are read one by one. See legacy_walker.cpp for how a torn
// chain is told from a real one.
class LegacyWalker {
public:
    explicit LegacyWalker(WalkContext& ctx) : ctx_(ctx), layout_(ctx.layout) {}

    // tstate: a local copy of the thread state. remembered: this thread's last chain
    // (used, then replaced by this walk's). Appends frames to out, leaf first.
    bool walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out, WalkPrefetch& remembered);

private:
    bool readChain(uint64_t frame, const WalkPrefetch& remembered);
    bool addFrame(uint64_t addr, StructView f, uint64_t& previous, bool seen);
    bool executing(StructView f) const;

    WalkContext& ctx_;
    const PythonLayout& layout_;
    struct Frame {
        uint64_t code;
        int32_t lasti;
        // The same frame object with the same code as last sample: the frame kept the
        // code object alive meanwhile, so the cached entry for it still holds.
        bool seen;
    };
    std::vector<Frame> frames_;                // the chain, then its code objects in one read
    std::vector<uint64_t> chain_, chainCodes_; // this walk's frame addresses, leaf first
    LoopGuard loop_;
    size_t maxChain_ = kMaxFrameWalk; // longest chain the thread's recursion depth allows
    std::vector<uint8_t> chainCopies_;
    std::vector<uint8_t> codeCopies_;
    static constexpr size_t kNoSlot = SIZE_MAX;
    std::vector<size_t> copySlot_; // per frame: its slot in codeCopies_, or kNoSlot
    std::vector<iovec> local_, remote_;
};

} // namespace gilscope::remote
