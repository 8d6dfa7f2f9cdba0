#include "core/pprof/thread_state.h"

#include "core/sample/thread_status.h"

namespace gilscope::pprof {

ThreadState threadStateOf(uint32_t status, bool gcOnStack) {
    if (gcOnStack) return ThreadState::Gc;
    if (status & ThreadStatus::HasException) return ThreadState::Exception;
    if (status & ThreadStatus::HasGil) return ThreadState::Gil;
    if (status & ThreadStatus::GilRequested) return ThreadState::Wait;
    if (status & ThreadStatus::Unknown) return ThreadState::Unknown;
    return (status & ThreadStatus::OnCpu) ? ThreadState::Cpu : ThreadState::Idle;
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
    case ThreadState::Unknown:
        break;
    }
    return {};
}

} // namespace gilscope::pprof
