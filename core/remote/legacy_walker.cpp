// <= 3.10: PyFrameObjects on the heap, linked through f_back.
//
// A frame that returns while we walk is freed, and CPython keeps freed frames for reuse:
// as its code object's zombie frame, or on the frame free list, which is linked through
// f_back, the very pointer the walk follows. A walk that meets such a frame wanders down
// the free list (dozens of copies of one function, no <module>). So every frame read is
// checked, whether it came from a fresh read or from the chain remembered last sample:
// - it is alive: ob_refcnt > 0 (freed frames keep 0 until reused);
// - below the top it is being evaluated: f_executing == 1 (3.8/3.9), f_state ==
//   FRAME_EXECUTING (3.10), which a recycled frame not yet running, or a finished one,
//   is not;
// - the chain is no longer than the thread's recursion depth allows (every evaluated
//   frame counts in tstate->recursion_depth), which also ends any cycle;
// - it ends at the thread's first frame: a frame without f_back that is being evaluated
//   (a generator frame read after it was suspended has lost its f_back, and is not) and
//   that is no generator's (one resumed while its frame was copied can look running
//   with the f_back it had while suspended).
// A walk that fails any of these is torn: the caller re-reads or counts an error.
#include "core/remote/legacy_walker.h"

#include <algorithm>

namespace gilscope::remote {

bool LegacyWalker::executing(StructView f) const {
    if (layout_.frExecuting != kAbsent) return f.field<int8_t>(layout_.frExecuting) == 1;
    if (layout_.frState != kAbsent) return f.field<int8_t>(layout_.frState) == 0; // FRAME_EXECUTING
    return true;
}

bool LegacyWalker::addFrame(uint64_t addr, StructView f, uint64_t& previous, bool seen) {
    previous = f.field<uint64_t>(layout_.frPrevious);
    if (loop_.revisits(addr)) return ctx_.fail("frame chain loops");
    if (layout_.frRefcnt != kAbsent && f.field<int64_t>(layout_.frRefcnt) <= 0)
        return ctx_.fail("a frame was freed while being read (torn read)");
    const bool top = frames_.empty();
    if ((!top || previous == 0) && !executing(f))
        return ctx_.fail(previous == 0 ? "the frame chain ends at a frame that is not running "
                                         "(torn read)"
                                       : "a caller frame is not running (torn read)");
    if (frames_.size() >= maxChain_)
        return ctx_.fail("frame chain longer than the thread's recursion depth (torn read)");
    const uint64_t code = f.field<uint64_t>(layout_.frCode);
    frames_.push_back({code, f.field<int32_t>(layout_.frLasti), seen});
    chain_.push_back(addr);
    chainCodes_.push_back(code);
    return true;
}

bool LegacyWalker::readChain(uint64_t frame, const WalkPrefetch& remembered) {
    const std::vector<uint64_t>& lastChain = remembered.chain;
    const size_t frSize = layout_.frSize;
    // A chain that is all new would cost a search per frame; give up searching soon.
    constexpr int kMaxMisses = 8;
    frames_.clear();
    chain_.clear();
    chainCodes_.clear();
    loop_ = {};
    size_t hint = 0; // where in lastChain the next frame is expected
    int misses = 0;
    while (frame != 0) {
        if (frames_.size() >= kMaxFrameWalk)
            return ctx_.fail("frame chain deeper than 1,048,576 frames");
        if (!plausibleAddress(frame) || (frame & 7)) return ctx_.fail("invalid frame pointer");
        // Usually the chain below this frame is the one we saw last sample: read that
        // stretch in one call and keep its frames while each one's f_back still leads to
        // the next (a link that no longer holds ends the stretch). The copies are fresh,
        // so each frame is checked as any other.
        size_t k = hint;
        if (k >= lastChain.size() || lastChain[k] != frame) {
            k = misses < kMaxMisses
                    ? static_cast<size_t>(std::find(lastChain.begin(), lastChain.end(), frame) -
                                          lastChain.begin())
                    : lastChain.size();
            if (k == lastChain.size()) ++misses;
        }
        const size_t n =
            k < lastChain.size()
                ? std::min({kMaxReadRanges, lastChain.size() - k, kMaxFrameWalk - frames_.size()})
                : 0;
        size_t added = 0;
        if (n >= 2) {
            if (!ctx_.budget.spend(n * frSize)) return ctx_.fail(SampleBudget::exhaustedMessage());
            chainCopies_.resize(n * frSize);
            local_.resize(n);
            remote_.resize(n);
            for (size_t j = 0; j < n; ++j) {
                local_[j] = {chainCopies_.data() + j * frSize, frSize};
                remote_[j] = {reinterpret_cast<void*>(lastChain[k + j]), frSize};
            }
            const size_t done = ctx_.mem.readMany({local_.data(), n}, {remote_.data(), n});
            while (added < done) {
                uint64_t previous = 0;
                const StructView f = StructView(chainCopies_).sub(added * frSize, frSize);
                const bool seen =
                    k + added < remembered.chainCodes.size() &&
                    f.field<uint64_t>(layout_.frCode) == remembered.chainCodes[k + added];
                if (!addFrame(frame, f, previous, seen)) return false;
                frame = previous;
                ++added;
                if (added < n && frame != lastChain[k + added]) break; // the chain changed
            }
        }
        if (added > 0) {
            hint = k + added;
            continue;
        }
        ctx_.single.resize(frSize);
        if (!ctx_.readBudgeted(frame, ctx_.single.data(), frSize))
            return ctx_.failRead("cannot read a frame");
        uint64_t previous = 0;
        if (!addFrame(frame, ctx_.single, previous, false)) return false;
        frame = previous;
        hint = k < lastChain.size() ? k + 1 : hint;
    }
    return true;
}

bool LegacyWalker::walk(std::span<const uint8_t> ts, std::vector<FrameId>& out,
                        WalkPrefetch& remembered) {
    // Every frame being evaluated counts in recursion_depth (read with the same copy of
    // the thread state as its frame pointer); one more for a frame whose evaluation is
    // ending (the count drops just before tstate->frame moves to the caller).
    maxChain_ = kMaxFrameWalk;
    if (layout_.tsRecursionDepth != kAbsent) {
        const int32_t depth = StructView(ts).field<int32_t>(layout_.tsRecursionDepth);
        maxChain_ = depth < 0 ? 1 : static_cast<size_t>(depth) + 1;
    }
    // Pass 1: follow the PyFrameObject chain (each frame needs the previous pointer).
    const bool ok = readChain(StructView(ts).field<uint64_t>(layout_.tsFrame), remembered);
    remembered.chain.swap(chain_);
    remembered.chainCodes.swap(chainCodes_);
    if (!ok) {
        // The addresses stay a prediction for the next read (each frame is checked again
        // then); their code objects are not taken as known without a fresh copy.
        remembered.chainCodes.clear();
        return false;
    }
    // Pass 2: fresh copies of their code objects in one call, so that a cache hit can be
    // checked against the object now at that address (addresses get reused). Frames
    // unchanged since the last sample keep their code object alive: no copy needed.
    const size_t coSize = layout_.coSize;
    copySlot_.assign(frames_.size(), kNoSlot);
    local_.clear();
    remote_.clear();
    for (size_t i = 0; i < frames_.size(); ++i) {
        if (frames_[i].seen && ctx_.codes.contains(frames_[i].code)) continue;
        copySlot_[i] = remote_.size();
        remote_.push_back({reinterpret_cast<void*>(frames_[i].code), coSize});
    }
    if (!ctx_.budget.spend(remote_.size() * coSize))
        return ctx_.fail(SampleBudget::exhaustedMessage());
    codeCopies_.resize(remote_.size() * coSize);
    for (size_t j = 0; j < remote_.size(); ++j)
        local_.push_back({codeCopies_.data() + j * coSize, coSize});
    for (size_t j = 0; j < remote_.size();) {
        const size_t n = std::min(kMaxReadRanges, remote_.size() - j);
        const size_t done = ctx_.mem.readMany({local_.data() + j, n}, {remote_.data() + j, n});
        if (done == n) {
            j += n;
            continue;
        }
        j += done; // the one that failed: read it alone (it may be unmapped: torn read)
        const uint64_t code = reinterpret_cast<uint64_t>(remote_[j].iov_base);
        if (!plausibleAddress(code) ||
            !ctx_.mem.read(code, codeCopies_.data() + j * coSize, coSize))
            return ctx_.fail("cannot read a code object");
        ++j;
    }
    for (size_t i = 0; i < frames_.size(); ++i) {
        // Each entry is used before the next lookup, which may evict it.
        const CodeInfo* info =
            copySlot_[i] == kNoSlot ? ctx_.codes.lookupKnown(frames_[i].code) : nullptr;
        if (!info) {
            std::span<const uint8_t> copy;
            if (copySlot_[i] != kNoSlot) {
                copy = {codeCopies_.data() + copySlot_[i] * coSize, coSize};
            } else { // due for revalidation, or evicted meanwhile
                ctx_.single.resize(coSize);
                if (!ctx_.mem.read(frames_[i].code, ctx_.single.data(), coSize))
                    return ctx_.fail("cannot read a code object");
                copy = ctx_.single;
            }
            info = ctx_.codes.lookupChecked(frames_[i].code, copy);
        }
        if (!info) return ctx_.fail("cannot read a code object");
        // A thread's first frame is never a generator's: that one was resumed by a caller.
        // Read with no f_back (suspended) yet running (resumed before f_executing was
        // copied), it ended a walk that missed the generator's callers.
        if (i + 1 == frames_.size() && info->resumable)
            return ctx_.fail("the frame chain ends at a generator's frame (torn read)");
        // f_lasti counts bytes in 3.8/3.9 and code units in 3.10.
        const int32_t lasti = frames_[i].lasti;
        const int64_t offset = layout_.minor >= 10 ? int64_t{lasti} * 2 : lasti;
        if (offset >= static_cast<int64_t>(info->bytecodeSize))
            return ctx_.fail("instruction offset outside its code object");
        if (const auto known = ctx_.codes.knownFrame(*info, offset)) {
            out.push_back(*known);
        } else {
            FrameInfo fi{info->filename, info->funcname};
            fi.firstLine = info->firstLine;
            if (offset < 0) {
                fi.line = fi.endLine = info->firstLine;
            } else {
                const SourceLocation loc = ctx_.codes.location(*info, offset);
                fi.line = fi.endLine = loc.line;
                if (ctx_.opcodes && static_cast<uint64_t>(offset) < info->bytecode.size())
                    fi.opcode = info->bytecode[static_cast<size_t>(offset)];
            }
            out.push_back(ctx_.registry.internFrame(fi));
            ctx_.codes.rememberFrame(*info, offset, out.back());
        }
        if (ctx_.addresses) // the chain was handed to `remembered` above
            ctx_.addresses->push_back(
                {uint32_t(out.size() - 1), remembered.chain[i], frames_[i].code});
    }
    return true;
}

} // namespace gilscope::remote
