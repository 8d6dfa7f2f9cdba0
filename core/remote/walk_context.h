#pragma once

#include "core/remote/code_cache.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"
#include "core/remote/sample_budget.h"
#include "core/sample/frame_registry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gilscope::remote {

// Longest chain a walk follows: a deeper one cannot be shown rooted, and is an error.
// (Python frames cost memory: a million of them is far past any real recursion limit.)
inline constexpr size_t kMaxFrameWalk = size_t{1} << 20;

// Where a Python frame a walk pushed lives in the target (dump --locals): `index` in the
// walk's output, the frame itself and its code object.
struct FrameAddress {
    uint32_t index = 0;
    uint64_t frame = 0, code = 0;
};

// Read-ahead state of one thread: predictions learned by its last walk and what the
// batch read brought back (see FrameWalker::planPrefetch).
struct WalkPrefetch {
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
    // had left the stack when the chunk was copied (see ModernWalker::walkChain).
    uint64_t tstateAddr = 0;
    uint64_t topAfter = 0;
    bool topOk = false;

    // Marks everything read ahead as unusable (a batch that did not reach the walk).
    void drop() {
        chunkOk = cframeOk = topOk = false;
        framesOk = 0;
    }
};

// Brent's cycle detection over the frames a walk visits: a chain that comes back to a
// frame it passed is found within two laps, long before kMaxFrameWalk.
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

// What both frame walkers (ModernWalker for 3.11+, LegacyWalker for 3.8-3.10) share:
// the one memory interface, the target's layout, where frames and code objects are
// interned, this sample's read budget, and why the last walk failed.
struct WalkContext {
    WalkContext(ProcessMemory& memory, const PythonLayout& pythonLayout, FrameRegistry& frames,
                CodeCache& codeCache, bool withOpcodes)
        : mem(memory), layout(pythonLayout), registry(frames), codes(codeCache),
          opcodes(withOpcodes) {}

    ProcessMemory& mem;
    const PythonLayout& layout;
    FrameRegistry& registry;
    CodeCache& codes;
    bool opcodes;
    SampleBudget budget;
    // The walks also note each Python frame's address here (nullptr: not noted).
    std::vector<FrameAddress>* addresses = nullptr;
    std::string stopReason;      // why a walk cannot go on (a spent budget, a chunk loop)
    std::string why;             // why the last walk failed
    std::vector<uint8_t> single; // a frame or code object read alone

    bool fail(std::string reason) {
        why = std::move(reason);
        return false;
    }
    // fail() with the reason the walk stopped, if it has one, else `what`.
    bool failRead(const char* what) { return fail(stopReason.empty() ? what : stopReason); }
    // Reads len bytes within this sample's budget (fails the walk when it is spent).
    bool readBudgeted(uint64_t addr, void* dst, size_t len) {
        if (!budget.spend(len)) {
            stopReason = SampleBudget::exhaustedMessage();
            return false;
        }
        return mem.read(addr, dst, len);
    }
};

} // namespace gilscope::remote
