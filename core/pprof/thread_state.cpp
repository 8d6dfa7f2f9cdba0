#include "core/pprof/thread_state.h"

#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"

namespace gilscope::pprof {

ThreadState threadStateOf(uint32_t status, bool gcOnStack, bool freeThreaded) {
    if (gcOnStack) return ThreadState::Gc;
    if (status & ThreadStatus::HasException) return ThreadState::Exception;
    if (status & ThreadStatus::HasGil) return freeThreaded ? ThreadState::Python : ThreadState::Gil;
    if (status & ThreadStatus::GilRequested)
        return freeThreaded ? ThreadState::Stopped : ThreadState::Wait;
    if (status & ThreadStatus::Unknown) return ThreadState::Unknown;
    if (status & ThreadStatus::OnCpu) return ThreadState::Cpu;
    switch (waitKindOf(waitReasonOf(status))) {
    case WaitKind::Lock:
        return ThreadState::Lock;
    case WaitKind::Io:
        return ThreadState::Io;
    case WaitKind::Poll:
        return ThreadState::Poll;
    case WaitKind::Sleep:
        return ThreadState::Sleep;
    case WaitKind::None:
    case WaitKind::Other:
        break;
    }
    return ThreadState::Idle;
}

std::string_view threadStateName(ThreadState state) {
    switch (state) {
    case ThreadState::Gc:
        return "gc";
    case ThreadState::Exception:
        return "exception";
    case ThreadState::Gil:
        return "gil";
    case ThreadState::Wait:
        return "wait";
    case ThreadState::Cpu:
        return "cpu";
    case ThreadState::Idle:
        return "idle";
    case ThreadState::Lock:
        return "lock";
    case ThreadState::Io:
        return "i/o";
    case ThreadState::Poll:
        return "poll";
    case ThreadState::Sleep:
        return "sleep";
    case ThreadState::Python:
        return "python";
    case ThreadState::Stopped:
        return "stopped";
    case ThreadState::Unknown:
        break;
    }
    return {};
}

} // namespace gilscope::pprof
