#pragma once

#include <cstdint>
#include <string_view>

namespace gilscope::pprof {

// The thread_state label of a pprof sample: one value per sample, so an engine can
// select by it. Values are chosen so that none contains another (`go tool pprof
// -tagfocus` matches a regular expression anywhere in the value): "wait" is waiting
// for the GIL, and I/O is "i/o" ("io" is inside "exception").
enum class ThreadState : uint8_t {
    Unknown,
    Gc,
    Exception,
    Gil,
    Wait,
    Cpu,
    Idle,
    Lock,
    Io,
    Poll,
    Sleep,
    // A free-threaded target's GIL bits (thread_status.h): attached, and suspended by a
    // stop-the-world pause.
    Python,
    Stopped,
};
inline constexpr int kThreadStateCount = 13;

// The first that applies: a <GC> frame on the stack, an active exception, holding the
// GIL, waiting for it, on CPU, off CPU waiting on a lock, on I/O, polling, asleep, off CPU
// for another reason. Unknown (no label) when the recording did not probe the CPU state
// and none of the others holds (wall mode).
// Free-threaded, "python" (attached) and "stopped" take the GIL's two places.
ThreadState threadStateOf(uint32_t status, bool gcOnStack, bool freeThreaded = false);
// "gc", "exception", "gil", "wait", "cpu", "idle", "lock", "i/o", "poll", "sleep", "python",
// "stopped"; empty for Unknown.
std::string_view threadStateName(ThreadState state);

} // namespace gilscope::pprof
