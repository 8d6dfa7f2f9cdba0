#include "core/analysis/profile_filter.h"

#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"

namespace gilscope {

namespace {
struct Names {
    StateFilter state;
    std::string_view name, label;
};
constexpr Names kNames[] = {
    {StateFilter::All, "all", "All"},
    {StateFilter::OnCpu, "cpu", "On CPU"},
    {StateFilter::HoldingGil, "gil", "Holding GIL"},
    {StateFilter::WaitingForGil, "gil-wait", "Waiting for GIL"},
    {StateFilter::Exception, "exception", "Exception"},
    {StateFilter::Gc, "gc", "GC"},
    {StateFilter::GilContention, "gil-contention", "GIL contention (holder)"},
    {StateFilter::LockWait, "lock", "Waiting on a lock"},
    {StateFilter::IoWait, "io", "Waiting on I/O"},
    {StateFilter::Poll, "poll", "Polling (event loop idle)"},
    {StateFilter::Sleep, "sleep", "Sleeping"},
    {StateFilter::LockContention, "lock-contention", "Lock contention (who ran)"},
};
} // namespace

std::string_view stateFilterName(StateFilter s) {
    for (const auto& n : kNames)
        if (n.state == s) return n.name;
    return "all";
}

std::string_view stateFilterLabel(StateFilter s, bool freeThreaded) {
    if (freeThreaded) {
        const GilBitWords words = gilBitWords(true);
        if (s == StateFilter::HoldingGil) return words.held;
        if (s == StateFilter::WaitingForGil) return words.waiting;
        if (s == StateFilter::GilContention) return "Stop-the-world (requester)";
    }
    for (const auto& n : kNames)
        if (n.state == s) return n.label;
    return "All";
}

std::optional<StateFilter> parseStateFilter(std::string_view name) {
    for (const auto& n : kNames)
        if (n.name == name) return n.state;
    if (name == "wall") return StateFilter::All;
    if (name == "python") return StateFilter::HoldingGil;
    if (name == "stopped") return StateFilter::WaitingForGil;
    return std::nullopt;
}

std::string stateFilterUnavailable(StateFilter s, int mode, int pythonMinor, bool freeThreaded) {
    const auto m = static_cast<ProfilingMode>(mode);
    const std::string remedy = "; `--mode all` records it";
    // Wall mode alone does not read each thread's CPU state from the kernel.
    if (m == ProfilingMode::Wall) {
        const std::string recorded = "it was recorded in wall mode, ";
        if (s == StateFilter::OnCpu) return recorded + "which does not read the CPU state" + remedy;
        // 3.15 says it in the thread state; before, it is inferred from the kernel's. A
        // free-threaded target's thread state says it is suspended (thread_status.h).
        if ((s == StateFilter::WaitingForGil || s == StateFilter::GilContention) &&
            pythonMinor > 0 && pythonMinor < 15 && !freeThreaded)
            return recorded + "and before Python 3.15 waiting for the GIL is read from the " +
                   "kernel's thread state, which that mode does not read" + remedy;
    }
    const bool waitFilter = s == StateFilter::LockWait || s == StateFilter::IoWait ||
                            s == StateFilter::Poll || s == StateFilter::Sleep ||
                            s == StateFilter::LockContention;
    if (waitFilter && m != ProfilingMode::All && m != ProfilingMode::Unknown)
        return "it was recorded in " +
               std::string(m == ProfilingMode::Wall ? "wall" : "a filtering") +
               " mode, which does not read why threads wait; `--mode all --wait-reasons` "
               "records it";
    if (m == ProfilingMode::Gil &&
        (s == StateFilter::WaitingForGil || s == StateFilter::GilContention))
        return "it was recorded in gil mode, which keeps only the thread holding the GIL" + remedy;
    return {};
}

bool statusPasses(StateFilter s, uint32_t status) {
    switch (s) {
    case StateFilter::All:
    case StateFilter::Gc:
        return true;
    case StateFilter::OnCpu:
        return status & ThreadStatus::OnCpu;
    case StateFilter::HoldingGil:
    case StateFilter::GilContention:
        return status & ThreadStatus::HasGil;
    case StateFilter::WaitingForGil:
        return status & ThreadStatus::GilRequested;
    case StateFilter::Exception:
        return status & ThreadStatus::HasException;
    case StateFilter::LockWait:
        return waitKindOf(waitReasonOf(status)) == WaitKind::Lock;
    case StateFilter::IoWait:
        return waitKindOf(waitReasonOf(status)) == WaitKind::Io;
    case StateFilter::Poll:
        return waitKindOf(waitReasonOf(status)) == WaitKind::Poll;
    case StateFilter::Sleep:
        return waitKindOf(waitReasonOf(status)) == WaitKind::Sleep;
    case StateFilter::LockContention:
        return status & ThreadStatus::OnCpu;
    }
    return true;
}

bool isContention(StateFilter s) {
    return s == StateFilter::GilContention || s == StateFilter::LockContention;
}

bool contentionWaits(StateFilter s, uint32_t status) {
    if (s == StateFilter::GilContention) return status & ThreadStatus::GilRequested;
    if (s == StateFilter::LockContention) return waitKindOf(waitReasonOf(status)) == WaitKind::Lock;
    return false;
}

} // namespace gilscope
