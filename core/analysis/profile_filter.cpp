#include "core/analysis/profile_filter.h"

#include "core/sample/thread_status.h"

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
};
} // namespace

std::string_view stateFilterName(StateFilter s) {
    for (const auto& n : kNames)
        if (n.state == s) return n.name;
    return "all";
}

std::string_view stateFilterLabel(StateFilter s) {
    for (const auto& n : kNames)
        if (n.state == s) return n.label;
    return "All";
}

std::optional<StateFilter> parseStateFilter(std::string_view name) {
    for (const auto& n : kNames)
        if (n.name == name) return n.state;
    if (name == "wall") return StateFilter::All;
    return std::nullopt;
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
    }
    return true;
}

} // namespace gilscope
