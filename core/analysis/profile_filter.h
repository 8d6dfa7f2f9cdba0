#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope {

// Which thread-samples a view counts, chosen after recording. The first six follow
// CPython's --mode values; GilContention keeps, for every tick in which some thread
// waited for the GIL, the sample of the thread that held it; LockContention, for every tick
// in which some thread waited on a lock, the samples of the threads on a CPU (who ran
// while others waited: no lock object is named, the kernel does not say whose it is).
enum class StateFilter : uint8_t {
    All,
    OnCpu,
    HoldingGil,
    WaitingForGil,
    Exception,
    Gc,
    GilContention,
    // Off CPU, and why (WaitReason, from the kernel's record of the thread's system call).
    LockWait,
    IoWait,
    Poll,
    Sleep,
    LockContention, // last: the values are kept in settings
};

inline constexpr StateFilter kAllStateFilters[] = {
    StateFilter::All,           StateFilter::OnCpu,     StateFilter::HoldingGil,
    StateFilter::WaitingForGil, StateFilter::Exception, StateFilter::Gc,
    StateFilter::GilContention, StateFilter::LockWait,  StateFilter::IoWait,
    StateFilter::Poll,          StateFilter::Sleep,     StateFilter::LockContention};

// "all", "cpu", "gil", "gil-wait", "exception", "gc", "gil-contention", "lock", "io", "poll",
// "sleep", "lock-contention" (CLI spelling).
std::string_view stateFilterName(StateFilter s);
// Also "python" and "stopped", the GIL filters' names for a free-threaded target.
std::optional<StateFilter> parseStateFilter(std::string_view name);
// "All", "On CPU", "Holding GIL", ... (GUI spelling). A free-threaded target has no GIL:
// the GIL filters are "Running Python", "Stopped by stop-the-world" and "Stop-the-world
// (requester)" there (what the GIL bits mean there: thread_status.h).
std::string_view stateFilterLabel(StateFilter s, bool freeThreaded = false);

// Why a state filter can match nothing in a recording made in `mode` (a ProfilingMode
// value; -1: unknown) of a Python 3.`pythonMinor` target (0: unknown), because that
// recording never read the state; empty when it can match. Such a filter would
// otherwise answer "0 of N" as if no thread had ever been in that state.
std::string stateFilterUnavailable(StateFilter s, int mode, int pythonMinor,
                                   bool freeThreaded = false);

// Whether a sample's ThreadStatus bits pass the filter (Gc and the contention views need
// more than the status: the stack, or the other threads of the tick).
bool statusPasses(StateFilter s, uint32_t status);

// The contention views: at the ticks in which some thread waits (contentionWaits), the
// samples of the threads that ran then (statusPasses).
bool isContention(StateFilter s);
bool contentionWaits(StateFilter s, uint32_t status);

struct ProfileFilter {
    std::vector<uint64_t> threads; // OS thread ids; empty means every thread
    bool hasRange = false;
    uint64_t startUs = 0; // absolute monotonic µs, [startUs, endUs)
    uint64_t endUs = UINT64_MAX;
    StateFilter state = StateFilter::All;

    bool operator==(const ProfileFilter&) const = default;
};

} // namespace gilscope
