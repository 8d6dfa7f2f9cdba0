#pragma once

#include "core/remote/code_cache.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"
#include "core/remote/sample_budget.h"
#include "core/remote/struct_view.h"
#include "core/sample/frame_registry.h"
#include "core/sample/stack_source.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gilscope::remote {

// Where a Python frame a walk pushed lives in the target (dump --locals): `index` in the
// walk's output, the frame itself and its code object.
struct FrameAddress {
    uint32_t index = 0;
    uint64_t frame = 0, code = 0;
};

// Walks one thread's Python frames, leaf first, out of the target's memory.
// 3.11+: the thread's datastack chunk is copied in one read and frames are parsed from
// the copy; frames elsewhere (generators, older chunks) are read one by one.
// <= 3.10: PyFrameObjects form a linked list on the heap. The chain seen last time is
// re-read in one call and kept as far as its links still hold (usually all but the
// leaf); frames that are new are read one by one.
class FrameWalker {
public:
    // Longest chain walked: a deeper one cannot be shown rooted, and is an error. (Python
    // frames cost memory: a million of them is far past any real recursion limit.)
    static constexpr size_t kMaxWalk = size_t{1} << 20;
    // Root-side frames a cut stack keeps below its <truncated: N frames> marker.
    static constexpr size_t kRootFramesKept = 16;

    FrameWalker(ProcessMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
                CodeCache& codes, bool opcodes);

    // Read-ahead state of one thread: predictions learned by its last walk and what the
    // batch read brought back (see planPrefetch).
    struct Prefetch {
        static constexpr size_t kMaxFrames = 4;
        uint64_t chunkAddr = 0, chunkLen = 0, cframeWordAddr = 0;
        std::vector<uint64_t> frames;
        bool chunkOk = false, cframeOk = false;
        size_t framesOk = 0;
        uint64_t cframeWord = 0;
        std::vector<uint8_t> chunkBytes, frameBytes;
        std::vector<uint64_t> chain, chainCodes; // <= 3.10: the last frame chain, leaf first
        // 3.11+: where the thread state is (0: unknown). Its datastack_top is read again
        // after the chunk, in the same syscall: a frame of the chunk above that top
        // had left the stack when the chunk was copied (see walkModern).
        uint64_t tstateAddr = 0;
        uint64_t topAfter = 0;
        bool topOk = false;
    };

    // `tstate` is a local copy of the PyThreadState at `tstateAddr`. Appends frames to
    // `out`. Returns false on a torn/invalid read, with the reason in error(): a walk
    // counts only when it provably reached the thread's base (see isBase and
    // frame_walker_legacy.cpp).
    // ahead: this thread's read-ahead state (used, then updated for next time).
    bool walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out, Prefetch& ahead);

    // 3.11+: ranges to read ahead, in the same syscall as the thread state, where the last
    // prefetching walk found them: its chunk, the current-frame word of its C-stack
    // cframe (3.11/3.12) and the frames it had to read one by one (entry frames on the C
    // stack, the base frame). A steady stack then costs one syscall. A range is used only
    // when this walk's thread state points at exactly it. Appends to local/remote.
    // Returns how many ranges it appended.
    size_t planPrefetch(Prefetch& ahead, std::vector<iovec>& local, std::vector<iovec>& remote);
    // How many of the planned ranges were read completely (they come first-to-last).
    void prefetchArrived(Prefetch& ahead, size_t complete);
    // Marks everything read ahead as unusable (a batch that did not reach the walk).
    static void dropPrefetch(Prefetch& ahead);

    const std::string& error() const { return error_; }

    // 3.11+: the frame whose local copy is f. False when its code object cannot be
    // read; `python` false for frames that show nothing (shims, frames being set up).
    bool describe(StructView f, FrameId& id, bool& python);
    // The reads of one sample, shared with the asyncio task reader: whoever starts a
    // sample calls budget().begin().
    SampleBudget& budget() { return budget_; }
    // 3.11+: end walks at this frame (the running asyncio task's coroutine frame), which
    // must be on the chain; 0 walks to the thread's base as usual.
    void setStopFrame(uint64_t frame) { stopFrame_ = frame; }

    // _Py_NoneStruct in the target: 3.13+ entry frames run None (0: not checked).
    void setNoneAddress(uint64_t none) { noneAddr_ = none; }
    // Frames a stack keeps (ReadOptions::maxDepth, at least 3); see cutMiddle.
    void setMaxDepth(size_t frames) { maxDepth_ = std::max<size_t>(frames, 3); }
    // CPython's --native: a "<native>" frame (file "~", line 0) where C code called into
    // Python, i.e. at each eval-loop entry below a Python frame (3.11+ only).
    void setNative(bool on);
    // --native-stacks (3.11+): the walks that follow also note where each eval-loop
    // call's run of frames ends, into `entries` (nullptr: not noted).
    void setEvalEntries(std::vector<EvalEntry>* entries) { entries_ = entries; }
    // The walks that follow also note each Python frame's address into `frames`
    // (nullptr: not noted), for reading its variables.
    void setFrameAddresses(std::vector<FrameAddress>* frames) { addresses_ = frames; }

private:
    struct Chunk {
        uint64_t addr = 0;
        std::vector<uint8_t> bytes;
    };

    bool walkModern(std::span<const uint8_t> tstate, std::vector<FrameId>& out);
    bool walkLegacy(std::span<const uint8_t> tstate, std::vector<FrameId>& out,
                    Prefetch& remembered);
    bool readLegacyChain(uint64_t frame, const Prefetch& remembered);
    bool addLegacyFrame(uint64_t addr, StructView f, uint64_t& previous, bool seen);
    bool legacyExecuting(StructView f) const;
    // Whether a chain ending at this frame reached the thread's base (3.11+).
    bool isBase(uint64_t addr, StructView f, uint8_t owner, uint64_t baseFrame) const;
    // Local bytes of the frame at addr, from a copied chunk or a fresh read (empty when
    // it cannot be read).
    StructView frameBytes(uint64_t addr);
    // Reads len bytes within this sample's budget (fails the walk when it is spent).
    bool readBudgeted(uint64_t addr, void* dst, size_t len);
    bool loadOlderChunk();
    bool fail(std::string why);
    void cutMiddle(std::vector<FrameId>& out, size_t first);
    void pushNative(std::vector<FrameId>& out, size_t first) const;
    void learnPrefetch(uint64_t chunk, uint64_t used, uint64_t cframeWord);
    // Whether the stack's top is read again after the chunk (the thread state's address
    // is known and the layout has datastack_top).
    bool rereadsTop(const Prefetch& pf) const;

    // Brent's cycle detection over the frames a walk visits: a chain that comes back to
    // a frame it passed is found within two laps, long before kMaxWalk.
    struct LoopGuard {
        uint64_t mark = 0;
        size_t power = 1, steps = 0;
        bool revisits(uint64_t frame) {
            if (frame == mark) return true;
            if (++steps == power) {
                mark = frame;
                power <<= 1;
                steps = 0;
            }
            return false;
        }
    };

    Prefetch* ahead_ = nullptr; // the walk's read-ahead state, while a 3.11+ walk runs
    std::vector<uint64_t> singlesThisWalk_;

    ProcessMemory& mem_;
    const PythonLayout& layout_;
    FrameRegistry& registry_;
    CodeCache& codes_;
    bool opcodes_;
    bool native_ = false;
    std::vector<EvalEntry>* entries_ = nullptr;
    std::vector<FrameAddress>* addresses_ = nullptr;
    bool lastNotStarted_ = false; // the frame describe() last named had not started
    FrameId nativeFrame_ = 0;
    uint64_t noneAddr_ = 0;
    uint64_t stopFrame_ = 0;
    size_t maxDepth_ = 1024 + 512;
    std::vector<Chunk> chunks_; // [0] is the current chunk; more are loaded on demand
    size_t chunksUsed_ = 0;
    size_t lastChunk_ = 0;    // the chunk that held the last frame found in one
    uint64_t olderChunk_ = 0; // next older chunk to load, 0 if none
    std::vector<uint8_t> single_;
    struct LegacyFrame {
        uint64_t code;
        int32_t lasti;
        // The same frame object with the same code as last sample: the frame kept the
        // code object alive meanwhile, so the cached entry for it still holds.
        bool seen;
    };
    std::vector<LegacyFrame> legacy_; // <= 3.10: the chain, then its code objects in one read
    std::vector<uint64_t> chain_, chainCodes_; // this walk's frame addresses, leaf first
    LoopGuard legacyLoop_;
    size_t maxChain_ = kMaxWalk; // <= 3.10: longest chain the thread's recursion depth allows
    std::vector<uint8_t> chainCopies_;
    std::vector<uint8_t> codeCopies_;
    static constexpr size_t kNoSlot = SIZE_MAX;
    std::vector<size_t> copySlot_; // per legacy_ frame: its slot in codeCopies_, or kNoSlot
    std::vector<iovec> local_, remote_;
    SampleBudget budget_;
    std::string stopReason_; // why a walk cannot go on (a spent budget, a chunk loop)
    std::string error_;
};

} // namespace gilscope::remote
