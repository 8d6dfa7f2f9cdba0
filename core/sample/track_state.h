#pragma once

#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"

#include <cstdint>

namespace gilscope {

// The one state a thread-sample is drawn in, in a track: the states a thread can be in
// at once (holding the GIL while on a CPU, say) resolved to the first that applies, in
// this order, so that every sample is in exactly one and a track's column shows the
// states in their true proportions, summing to the whole. Exception and GC are not
// states of their own but marks on any of these.
enum class TrackState : uint8_t {
    GilHeld,   // holding the GIL
    GilWait,   // waiting for it
    OnCpu,     // on a CPU without it (C code that released it; a free-threaded Python)
    LockWait,  // off CPU, and why (--wait-reasons): a lock,
    Io,        // I/O,
    SleepPoll, // asleep, or an event loop waiting for readiness
    Idle,      // off CPU for no reason that was read
};
inline constexpr int kTrackStateCount = 7;

inline TrackState trackStateOf(uint32_t status) {
    if (status & ThreadStatus::HasGil) return TrackState::GilHeld;
    if (status & ThreadStatus::GilRequested) return TrackState::GilWait;
    if (status & ThreadStatus::OnCpu) return TrackState::OnCpu;
    switch (waitKindOf(waitReasonOf(status))) {
    case WaitKind::Lock:
        return TrackState::LockWait;
    case WaitKind::Io:
        return TrackState::Io;
    case WaitKind::Poll:
    case WaitKind::Sleep:
        return TrackState::SleepPoll;
    case WaitKind::None:
    case WaitKind::Other:
        break;
    }
    return TrackState::Idle;
}

} // namespace gilscope
