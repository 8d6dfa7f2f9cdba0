#pragma once

#include <cstdint>

namespace gilscope {

// Exactly CPython 3.15's THREAD_STATUS_* values (Modules/_remote_debugging), so status
// bytes round-trip through the .bin format unchanged.
namespace ThreadStatus {
inline constexpr uint32_t HasGil = 1u << 0;
inline constexpr uint32_t OnCpu = 1u << 1;
inline constexpr uint32_t Unknown = 1u << 2;
inline constexpr uint32_t GilRequested = 1u << 3;
inline constexpr uint32_t HasException = 1u << 4;
inline constexpr uint32_t MainThread = 1u << 5;
} // namespace ThreadStatus

// What the two GIL bits mean. On a free-threaded build they say what CPython's own
// profiler makes them say there: HasGil that the thread is attached (runs Python or the C
// API), GilRequested (gilscope's) that it is suspended, stopped by another thread's
// stop-the-world request (the GC, say). One home for their names in every view.
struct GilBitWords {
    const char* held;        // "GIL held" / "Running Python"
    const char* waiting;     // "Waiting for GIL" / "Stopped by stop-the-world"
    const char* heldFlag;    // dump's flags: "has_gil" / "attached"
    const char* waitingFlag; // "gil_requested" / "suspended"
    const char* withoutHeld; // on a CPU without the first: "On CPU without the GIL"
};
inline GilBitWords gilBitWords(bool freeThreaded) {
    if (freeThreaded)
        return {"Running Python", "Stopped by stop-the-world", "attached", "suspended",
                "On CPU, detached (C code)"};
    return {"GIL held", "Waiting for GIL", "has_gil", "gil_requested", "On CPU without the GIL"};
}

// CPython's profiling modes (_remote_debugging.h), stored in the .bin config word.
enum class ProfilingMode : int { Unknown = -1, Wall = 0, Cpu = 1, Gil = 2, All = 3, Exception = 4 };

// Whether a thread with these status bits is sampled in `mode`: CPython's
// skip_non_matching_threads rule (Modules/_remote_debugging/threads.c). Wall and All
// sample every thread.
inline bool threadMatchesMode(ProfilingMode mode, uint32_t status) {
    switch (mode) {
    case ProfilingMode::Cpu:
        return (status & ThreadStatus::OnCpu) != 0;
    case ProfilingMode::Gil:
        return (status & ThreadStatus::HasGil) != 0;
    case ProfilingMode::Exception:
        return (status & ThreadStatus::HasException) != 0;
    default:
        return true;
    }
}

// Capture-feature bits of the .bin config word (binary_collector.py CAPTURE_FEATURES).
namespace CaptureFeature {
inline constexpr uint32_t AllThreads = 1u << 0;
inline constexpr uint32_t Native = 1u << 1;
inline constexpr uint32_t Gc = 1u << 2;
inline constexpr uint32_t Opcodes = 1u << 3;
inline constexpr uint32_t Blocking = 1u << 4;
} // namespace CaptureFeature

} // namespace gilscope
