// The 3.11+ walk: frames in datastack chunks, read from one copy of the current chunk,
// checked against the stack's top read after it, down to the thread's base frame.
#include "core/remote/modern_walker.h"

#include <algorithm>

namespace gilscope::remote {

namespace {

constexpr uint64_t kChunkHeader = 24;          // _PyStackChunk {previous, size, top, data[]}
constexpr uint64_t kMaxChunkBytes = 16u << 20; // CPython's MAX_STACK_CHUNK_SIZE
constexpr uint64_t kDefaultChunk = 16u << 10;  // DATA_STACK_CHUNK_SIZE
constexpr uint8_t kMaxOwner = 4;               // 3.14's FRAME_OWNED_BY_CSTACK

} // namespace

bool ModernWalker::walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out,
                        WalkPrefetch& ahead) {
    ahead_ = &ahead;
    singlesThisWalk_.clear();
    const bool ok = walkChain(tstate, out);
    ahead.drop(); // what was read ahead served this walk only
    ahead.frames = singlesThisWalk_;
    ahead_ = nullptr;
    // Chunks are visited once per walk; a retry within the sample reads them again.
    for (size_t i = 0; i < chunksUsed_; ++i)
        ctx_.budget.forget(chunks_[i].addr);
    return ok;
}

size_t ModernWalker::planPrefetch(WalkPrefetch& pf, std::vector<iovec>& local,
                                  std::vector<iovec>& remote) {
    pf.drop(); // nothing of an earlier batch may be taken for this one
    size_t planned = 0;
    // Order: small ranges first, the chunk (the likeliest to have gone) last, since a
    // failed range ends the batch.
    if (pf.cframeWordAddr) {
        local.push_back({&pf.cframeWord, sizeof pf.cframeWord});
        remote.push_back({reinterpret_cast<void*>(pf.cframeWordAddr), sizeof pf.cframeWord});
        ++planned;
    }
    const size_t frSize = layout_.frSize;
    pf.frameBytes.resize(pf.frames.size() * frSize);
    for (size_t i = 0; i < pf.frames.size(); ++i) {
        local.push_back({pf.frameBytes.data() + i * frSize, frSize});
        remote.push_back({reinterpret_cast<void*>(pf.frames[i]), frSize});
        ++planned;
    }
    if (pf.chunkLen) {
        pf.chunkBytes.resize(pf.chunkLen);
        local.push_back({pf.chunkBytes.data(), pf.chunkLen});
        remote.push_back({reinterpret_cast<void*>(pf.chunkAddr), pf.chunkLen});
        ++planned;
        if (rereadsTop(pf)) {
            local.push_back({&pf.topAfter, sizeof pf.topAfter});
            remote.push_back({reinterpret_cast<void*>(pf.tstateAddr + layout_.tsDatastackTop),
                              sizeof pf.topAfter});
            ++planned;
        }
    }
    return planned;
}

void ModernWalker::prefetchArrived(WalkPrefetch& pf, size_t complete) {
    // The planned ranges, in planPrefetch's order; the first `complete` of them arrived.
    size_t next = 0;
    auto arrived = [&] { return next++ < complete; };
    pf.cframeOk = pf.cframeWordAddr && arrived();
    pf.framesOk = 0;
    for (size_t k = 0; k < pf.frames.size(); ++k)
        if (arrived()) ++pf.framesOk;
    pf.chunkOk = pf.chunkLen && arrived();
    pf.topOk = pf.chunkOk && rereadsTop(pf) && arrived();
}

bool ModernWalker::rereadsTop(const WalkPrefetch& pf) const {
    return pf.tstateAddr != 0 && layout_.tsDatastackTop != kAbsent;
}

void ModernWalker::learnPrefetch(uint64_t chunk, uint64_t used, uint64_t cframeWord) {
    // Room for the stack to grow a little before the next sample, within the chunk.
    constexpr uint64_t kSlack = 1024;
    uint64_t len = 0;
    if (chunk && !chunks_.empty() && chunks_[0].bytes.size() >= kChunkHeader) {
        const uint64_t size = StructView(chunks_[0].bytes).field<uint64_t>(8);
        if (size >= used && size <= kMaxChunkBytes) len = std::min(size, used + kSlack);
    }
    ahead_->chunkAddr = len ? chunk : 0;
    ahead_->chunkLen = len;
    ahead_->cframeWordAddr = cframeWord;
}

bool ModernWalker::loadOlderChunk() {
    if (olderChunk_ == 0 || !plausibleAddress(olderChunk_)) return false;
    // The chunk list is a linked list in the target's memory: one that comes back to a
    // chunk of this walk is torn (or hostile), and would be read again and again.
    if (!ctx_.budget.firstVisit(olderChunk_)) {
        ctx_.stopReason = "the stack's chunks form a loop (torn read)";
        return false;
    }
    if (chunks_.size() <= chunksUsed_) chunks_.emplace_back();
    Chunk& c = chunks_[chunksUsed_];
    c.addr = olderChunk_;
    auto loaded = [&] {
        if (!ctx_.budget.spend(kDefaultChunk)) {
            ctx_.stopReason = SampleBudget::exhaustedMessage();
            return false;
        }
        c.bytes.resize(kDefaultChunk);
        const size_t got = ctx_.mem.readPartial(c.addr, c.bytes.data(), c.bytes.size());
        if (got < kChunkHeader) return false;
        const uint64_t size = StructView(c.bytes).field<uint64_t>(8);
        if (size < kChunkHeader || size > kMaxChunkBytes) return false;
        if (size > got) {
            c.bytes.resize(size);
            if (!ctx_.readBudgeted(c.addr, c.bytes.data(), size)) return false;
        }
        c.bytes.resize(size);
        return true;
    };
    if (!loaded()) {
        ctx_.budget.forget(c.addr);
        return false;
    }
    olderChunk_ = StructView(c.bytes).field<uint64_t>(0);
    ++chunksUsed_;
    return true;
}

StructView ModernWalker::frameBytes(uint64_t addr) {
    const uint64_t need = layout_.frSize;
    auto inChunk = [&](size_t i) {
        const Chunk& c = chunks_[i];
        return addr >= c.addr + kChunkHeader && addr + need <= c.addr + c.bytes.size();
    };
    // Callers usually sit in the chunk of the frame before (deep recursion spans many).
    if (lastChunk_ < chunksUsed_ && inChunk(lastChunk_))
        return StructView(chunks_[lastChunk_].bytes).sub(addr - chunks_[lastChunk_].addr, need);
    for (;;) {
        for (size_t i = 0; i < chunksUsed_; ++i) {
            if (!inChunk(i)) continue;
            lastChunk_ = i;
            return StructView(chunks_[i].bytes).sub(addr - chunks_[i].addr, need);
        }
        // A frame below the copied chunks lives in an older chunk (deep recursion) or
        // in a generator; try the older chunks first, they hold many frames each.
        if (!loadOlderChunk()) break;
    }
    if (!ctx_.stopReason.empty()) return {};
    // Remembered whether it came from the prefetch or not: wanted again next time.
    if (singlesThisWalk_.size() < WalkPrefetch::kMaxFrames) singlesThisWalk_.push_back(addr);
    for (size_t i = 0; i < ahead_->framesOk; ++i)
        if (ahead_->frames[i] == addr) return StructView(ahead_->frameBytes).sub(i * need, need);
    ctx_.single.resize(need);
    if (!ctx_.readBudgeted(addr, ctx_.single.data(), need)) return {};
    return ctx_.single;
}

bool ModernWalker::walkChain(std::span<const uint8_t> ts, std::vector<FrameId>& out) {
    const size_t first = out.size(); // a <GC> frame may come before the walk
    const StructView t(ts);
    uint64_t frame = 0;
    // The current frame pointer is read before the chunk is copied: a thread that returned
    // from it meanwhile, and called another function into its caller's slot, leaves a
    // copy that chains the old leaf to a caller it never had. The top read after the copy
    // says which frames were still on the stack (CPython 3.11-3.15 alike).
    uint64_t topAfter = UINT64_MAX, topWord = 0;
    const uint64_t chunk = t.field<uint64_t>(layout_.tsDatastackChunk);
    const uint64_t top = t.field<uint64_t>(layout_.tsDatastackTop);
    chunksUsed_ = 0;
    lastChunk_ = 0;
    olderChunk_ = 0;
    const bool haveChunk =
        plausibleAddress(chunk) && top > chunk + kChunkHeader && top - chunk <= kMaxChunkBytes;
    if (chunks_.empty()) chunks_.emplace_back();
    Chunk& current = chunks_[0];
    const uint64_t used = haveChunk ? top - chunk : 0;
    bool chunkKnown = false;
    if (haveChunk) {
        current.addr = chunk;
        if (ahead_->chunkOk && ahead_->chunkAddr == chunk && used <= ahead_->chunkLen) {
            current.bytes.swap(ahead_->chunkBytes); // read ahead with the thread state
            chunkKnown = true;
            if (ahead_->topOk) topAfter = ahead_->topAfter;
        }
        current.bytes.resize(used);
    }
    // One syscall for what was not read ahead: the current frame pointer (3.11/3.12 keep
    // it in the C-stack cframe), the whole used part of the current chunk, and the stack's
    // top once more after it.
    iovec local[3], remote[3];
    size_t n = 0;
    uint64_t cframeWord = 0;
    if (layout_.tsCframe != kAbsent) {
        const uint64_t cframe = t.field<uint64_t>(layout_.tsCframe);
        if (!plausibleAddress(cframe)) return true; // thread not running Python yet
        cframeWord = cframe + layout_.cfCurrentFrame;
        if (ahead_->cframeOk && ahead_->cframeWordAddr == cframeWord) {
            frame = ahead_->cframeWord;
        } else {
            local[n] = {&frame, sizeof frame};
            remote[n++] = {reinterpret_cast<void*>(cframeWord), sizeof frame};
        }
    } else {
        frame = t.field<uint64_t>(layout_.tsCurrentFrame);
    }
    const bool chunkInBatch = haveChunk && !chunkKnown;
    if (haveChunk && !ctx_.budget.spend(used)) return ctx_.fail(SampleBudget::exhaustedMessage());
    const size_t chunkAt = n;
    if (chunkInBatch) {
        local[n] = {current.bytes.data(), current.bytes.size()};
        remote[n++] = {reinterpret_cast<void*>(chunk), current.bytes.size()};
        if (rereadsTop(*ahead_)) {
            local[n] = {&topWord, sizeof topWord};
            remote[n++] = {reinterpret_cast<void*>(ahead_->tstateAddr + layout_.tsDatastackTop),
                           sizeof topWord};
        }
    }
    if (n > 0) {
        const size_t done = ctx_.mem.readMany({local, n}, {remote, n});
        if (done < chunkAt) return ctx_.fail("cannot read the current frame");
        if (chunkInBatch && done == chunkAt)
            current.bytes.resize(0); // chunk unreadable: fall back to single reads
        else if (chunkInBatch && done == n && n > chunkAt + 1)
            topAfter = topWord;
    }
    // The current chunk's extent (0: not copied); its frames must lie below topAfter.
    uint64_t chunkEnd = 0;
    if (haveChunk && current.bytes.size() >= kChunkHeader) {
        if (!ctx_.budget.firstVisit(chunk))
            return ctx_.fail("two threads' stacks share a chunk (torn read)");
        chunksUsed_ = 1;
        olderChunk_ = StructView(current.bytes).field<uint64_t>(0);
        const uint64_t size = StructView(current.bytes).field<uint64_t>(8);
        if (size <= kMaxChunkBytes) chunkEnd = chunk + size;
    }
    learnPrefetch(haveChunk ? chunk : 0, used, cframeWord);

    const uint8_t skipOwner = static_cast<uint8_t>(layout_.firstSkippedOwner);
    const uint64_t baseFrame =
        layout_.tsBaseFrame != kAbsent ? t.field<uint64_t>(layout_.tsBaseFrame) : 0;
    bool atBase = true; // an empty chain: the thread runs no Python code
    LoopGuard loop;
    uint64_t visited = 0;
    for (size_t steps = 0; frame != 0; ++steps) {
        if (stopFrame_ && visited == stopFrame_) return true; // the running task's own frame
        visited = frame;
        if (steps >= kMaxFrameWalk) return ctx_.fail("frame chain deeper than 1,048,576 frames");
        if (loop.revisits(frame)) return ctx_.fail("frame chain loops");
        if (!plausibleAddress(frame) || (frame & 7)) return ctx_.fail("invalid frame pointer");
        // A frame that starts above the top had left the stack with its caller, whose slot
        // may hold another call by now. One that starts at the top had left alone: its
        // caller is the running frame, unchanged, and the stack stands as read a moment
        // earlier (fast recursion does this all the time). Its start is compared, since a
        // frame without locals may end before the bytes read of it do.
        if (frame >= chunk && frame < chunkEnd && frame > topAfter)
            return ctx_.fail("a frame left the stack while it was read (torn read)");
        const StructView f = frameBytes(frame);
        if (f.empty()) return ctx_.failRead("cannot read a frame");
        const uint64_t previous = f.field<uint64_t>(layout_.frPrevious);
        const uint8_t owner = f.field<uint8_t>(layout_.frOwner);
        // _frameowner has 4 values (5 from 3.14): anything else is memory that is no frame.
        if (owner > kMaxOwner) return ctx_.fail("not a frame (torn read)");
        atBase = isBase(frame, f, owner, baseFrame);
        if (owner >= skipOwner) { // interpreter shim frame: C code entered the eval loop here
            // 3.15's base frame ends every chain below the first entry frame, which says it.
            const bool base = layout_.base == PythonLayout::Base::BaseFrame && frame == baseFrame;
            if (!base) pushNative(out, first);
            if (!base && entries_)
                entries_->push_back(
                    {uint32_t(out.size()), frame, previous, uint32_t(layout_.frPrevious)});
            frame = previous;
            continue;
        }
        FrameId id;
        bool python = false;
        if (!describe(f, id, python)) return ctx_.failRead("cannot read a code object");
        if (!python) { // a frame being set up or torn down, or an interpreter shim
            frame = previous;
            continue;
        }
        // --native-stacks on 3.11: a leaf that has not started may be a callback's frame
        // whose eval loop has not marked it as its entry yet (is_entry), nor linked it for
        // good, so its run would join its caller's: torn, read again. (Without native
        // stacks CPython's rule stands: such a frame shows at its first line.)
        if (entries_ && layout_.frIsEntry != kAbsent && out.size() == first && lastNotStarted_)
            return ctx_.fail("the leaf frame is entering its eval loop (torn read)");
        out.push_back(id);
        if (ctx_.addresses)
            ctx_.addresses->push_back({uint32_t(out.size() - 1), frame,
                                       f.field<uint64_t>(layout_.frCode) & layout_.frameTagMask});
        // 3.11 marks the first frame of each eval-loop call instead of a shim below it.
        if (layout_.frIsEntry != kAbsent && f.field<uint8_t>(layout_.frIsEntry) != 0) {
            pushNative(out, first);
            if (entries_) entries_->push_back({uint32_t(out.size()), 0});
        }
        frame = previous;
    }
    if (stopFrame_ && visited != stopFrame_)
        return ctx_.fail("the running task's frame is not on its thread's stack (torn read)");
    if (stopFrame_) return true;
    // A chain that ends anywhere else ended at a frame read after it left the stack (a
    // generator frame suspended meanwhile has no previous frame any more).
    if (!atBase) return ctx_.fail("the frame chain does not reach the thread's base (torn read)");

    return true;
}

bool ModernWalker::describe(StructView f, FrameId& id, bool& python) {
    python = false;
    lastNotStarted_ = false;
    const uint64_t code = f.field<uint64_t>(layout_.frCode) & layout_.frameTagMask;
    const uint64_t instr = f.field<uint64_t>(layout_.frInstr);
    if (code == 0) return true; // frame being set up or torn down
    const uint64_t globals = f.field<uint64_t>(layout_.frGlobals); // absent: 0
    const CodeInfo* info = ctx_.codes.lookup(code, instr, globals);
    if (!info) return false;
    if (info->trampoline && layout_.minor == 12 &&
        f.field<uint8_t>(layout_.frOwner) != layout_.firstSkippedOwner) {
        // An entry frame caught half set up (its C stack slot still holds an older frame's
        // owner): the chain around it is not one instant's, and skipping it would join
        // two eval loops' runs into one.
        ctx_.stopReason = "an eval loop's entry frame is half set up (torn read)";
        return false;
    }
    if (info->interpreterShim) return true;
    const int64_t offset = static_cast<int64_t>(instr - info->bytecodeAddr);
    if (const auto known = ctx_.codes.knownFrame(*info, offset)) {
        id = *known;
        python = true;
        return true;
    }
    FrameInfo fi{info->filename, info->funcname};
    fi.firstLine = info->firstLine;
    if (offset < 0) { // not started yet: CPython reports the first line
        lastNotStarted_ = true;
        fi.line = fi.endLine = info->firstLine;
    } else {
        const SourceLocation loc = ctx_.codes.location(*info, offset);
        fi.line = loc.line;
        fi.endLine = loc.endLine;
        fi.column = loc.column;
        fi.endColumn = loc.endColumn;
        if (ctx_.opcodes && static_cast<uint64_t>(offset) < info->bytecode.size())
            fi.opcode = info->bytecode[static_cast<size_t>(offset) & ~size_t{1}];
    }
    id = ctx_.registry.internFrame(fi);
    ctx_.codes.rememberFrame(*info, offset, id);
    python = true;
    return true;
}

void ModernWalker::setNative(bool on) {
    native_ = on;
    if (on) {
        FrameInfo fi{ctx_.registry.internString(kPseudoFrameFile),
                     ctx_.registry.internString("<native>")};
        fi.line = fi.endLine = 0;
        nativeFrame_ = ctx_.registry.internFrame(fi);
    }
}

// CPython's rule: only between Python frames, so never as the leaf (the thread is in
// C code called from Python: its Python caller is the leaf) and never twice in a row.
void ModernWalker::pushNative(std::vector<FrameId>& out, size_t first) const {
    if (!native_ || out.size() <= first || out.back() == nativeFrame_) return;
    out.push_back(nativeFrame_);
}

bool ModernWalker::isBase(uint64_t addr, StructView f, uint8_t owner, uint64_t baseFrame) const {
    switch (layout_.base) {
    case PythonLayout::Base::BaseFrame: // 3.15: tstate->base_frame ends every chain
        return addr == baseFrame;
    case PythonLayout::Base::ShimFrame: { // 3.12-3.14: the first eval call's entry frame
        // Owner 3 (CSTACK, INTERPRETER from 3.14), running the trampoline: f_executable is
        // None from 3.13, the "<shim>" code object in 3.12.
        if (owner != 3) return false;
        const uint64_t exec = f.field<uint64_t>(layout_.frCode) & layout_.frameTagMask;
        if (layout_.minor >= 13) return noneAddr_ == 0 || exec == noneAddr_;
        const CodeInfo* info = ctx_.codes.lookup(exec, 0);
        return info && info->interpreterShim;
    }
    case PythonLayout::Base::ThreadEntryFrame: // 3.11: a thread-owned frame entering the eval loop
        return owner == 0 && f.field<uint8_t>(layout_.frIsEntry) != 0;
    case PythonLayout::Base::ExecutingRoot:
        break;
    }
    return true;
}

} // namespace gilscope::remote
