#pragma once

#include "core/sample/frame_registry.h"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// Serves a thread's Python stack from its last walk when the thread provably ran no
// Python since: exact, never a guess. The proof is the GIL's switch counter
// (_gil_runtime_state.switch_number), which CPython bumps whenever a thread other than
// the last holder takes the GIL. Frames are pushed and popped only under the GIL, so
// if the counter has not moved since the walk, only the last holder can have run
// Python; every other thread's frames are as they were. The last holder (then or now)
// is always walked. A thread blocked in a lock, in I/O or in C code then costs a few
// bytes of its thread state per sample instead of its frames.
//
// Only for builds with a GIL (a free-threaded build has no such counter), and per GIL:
// the reader keeps one for the main interpreter's.
class UnchangedStacks {
public:
    struct GilEpoch {
        uint64_t switches = 0;   // switch_number
        uint64_t lastHolder = 0; // last_holder (a thread state address)
        bool known = false;      // false: nothing is served this sample
    };

    // At the start of each sample, with the GIL's fields just read.
    void beginSample(const GilEpoch& now) {
        now_ = now;
        ++sampleNo_;
    }

    // Appends the thread's frames from its last walk and returns true when they still
    // hold: the counter has not moved, the thread was not the last holder then or now,
    // and it is the same thread (id and current-frame word) at the same address.
    bool serve(uint64_t tstate, uint64_t threadId, uint64_t frameWord, std::vector<FrameId>& out);

    // After a successful walk: what serve() may hand out while nothing switches.
    void store(uint64_t tstate, uint64_t threadId, uint64_t frameWord,
               std::span<const FrameId> frames);
    // After a failed walk, or a thread read that went wrong.
    void forget(uint64_t tstate) { entries_.erase(tstate); }

    // Drops the entries of threads not seen for a while (gone, or not sampled).
    void endSample();

    uint64_t served() const { return served_; }

private:
    struct Entry {
        uint64_t threadId = 0, frameWord = 0, switches = 0, holder = 0;
        uint64_t seen = 0;
        std::vector<FrameId> frames;
    };
    static constexpr uint64_t kForgetAfterSamples = 64;
    static constexpr size_t kMaxEntries = 8192; // CPython's per-interpreter thread bound

    GilEpoch now_;
    uint64_t sampleNo_ = 0, served_ = 0;
    std::unordered_map<uint64_t, Entry> entries_; // by thread state address
};

} // namespace gilscope::remote
