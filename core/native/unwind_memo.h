#pragma once

#include "core/native/native_unwinder.h"
#include "core/remote/remote_memory.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::native {

// Resumes an unwind from the thread's last one, exactly. Unwinding from a frame is a
// function of that frame (pc, whether it is an activation, the registers) and of the
// stack words the unwinder reads from there on. So when an unwind reaches a frame the
// last one also reached, with the same registers, and every word the last one read from
// that frame on still holds the same value, it would go on exactly as the last one did:
// its remaining frames are taken as they are. The root part of a stack rarely changes
// between samples, so most of a deep stack costs one comparison per word.
class UnwindMemo {
public:
    struct Frame {
        NativeFrame frame;
        std::array<uint64_t, Registers::kCount> regs{};
        uint32_t known = 0;   // bit i: regs[i] is defined here
        bool withRegs = true; // false: regs were not looked at (a frame never resumed from)
        bool operator==(const Frame&) const = default;
    };

    // Bounds: a thread's trace holds at most NativeUnwinder::kMaxFrames frames; traces
    // of at most kMaxThreads threads are kept (all are dropped past it).
    static constexpr size_t kMaxThreads = 4096;

    // An unwind of thread tid starts.
    void begin(int tid);
    // Whether the thread's last unwind reached a frame at f's pc and stack pointer: only
    // there may this one resume, so only there are its registers worth reading.
    bool mayResumeAt(const NativeFrame& f) const;
    // The unwinder is about to look at its next frame: the words it reads from now on are
    // that frame's (libdwfl reads the next frame's words while it answers whether this
    // one is an activation, before the frame is reached).
    void frameStarts() { frameFirstRead_ = static_cast<uint32_t>(current_.reads.size()); }
    // The unwinder read the word at addr (ok: it could).
    void read(uint64_t addr, bool ok, uint64_t value);
    // The unwinder reached frame f. True when the thread's last unwind resumes here: its
    // frames from here on were appended to `out`, and the unwind should stop.
    // A frame without registers (withRegs false) is kept, but never resumed from.
    bool reached(const Frame& f, remote::ProcessMemory& memory, std::vector<NativeFrame>& out);
    // The unwind ended, where and why it stopped (empty: it reached the end). Keeps it as
    // the thread's trace, and returns why it stopped: after a resume, the last trace's
    // reason stands, not `stop`.
    const std::string& end(const std::string& stop);
    bool resumed() const { return resumed_; }

    // The module list changed: a pc may mean other code now.
    void clear();

    // Frames taken from traces, over the unwinder's life (tests, benchmarks).
    uint64_t framesReused() const { return framesReused_; }

private:
    struct Read {
        uint64_t addr = 0;
        uint64_t value = 0;
        bool ok = false;
    };
    struct Step {
        Frame frame;
        uint32_t firstRead = 0; // reads from here on were made unwinding past this frame
    };
    struct Trace {
        std::vector<Step> steps;
        std::vector<Read> reads;
        std::string stop;
    };
    bool stillReads(const Trace& last, uint32_t from, remote::ProcessMemory& memory) const;

    std::unordered_map<int, Trace> traces_;
    Trace current_;
    int tid_ = 0;
    const Trace* last_ = nullptr; // the thread's last unwind, looked up once in begin()
    uint32_t frameFirstRead_ = 0;
    bool resumed_ = false;
    uint64_t framesReused_ = 0;
};

} // namespace gilscope::native
