#include "tui/live_table.h"

#include "core/analysis/profile_views.h"
#include "core/util/utf8.h"

#include <algorithm>

namespace gilscope::tui {

const char* sortName(SortKey k) {
    switch (k) {
    case SortKey::Own:
        return "own";
    case SortKey::Total:
        return "total";
    case SortKey::Name:
        return "name";
    }
    return "own";
}

SortKey nextSort(SortKey k) {
    switch (k) {
    case SortKey::Own:
        return SortKey::Total;
    case SortKey::Total:
        return SortKey::Name;
    case SortKey::Name:
        return SortKey::Own;
    }
    return SortKey::Own;
}

StateFilter nextState(StateFilter s) {
    switch (s) {
    case StateFilter::All:
        return StateFilter::OnCpu;
    case StateFilter::OnCpu:
        return StateFilter::HoldingGil;
    case StateFilter::HoldingGil:
        return StateFilter::WaitingForGil;
    default:
        return StateFilter::All;
    }
}

LiveTable buildLiveTable(const ProfileSnapshot& s, SortKey sort) {
    LiveTable t;
    t.matched = s.matchedSamples;
    t.recorded = s.recordedSamples;
    std::vector<FunctionRow> rows = functionTable(s);
    const auto name = [&](const FunctionRow& r) -> const std::string& {
        return s.functions[r.func].name;
    };
    std::sort(rows.begin(), rows.end(), [&](const FunctionRow& a, const FunctionRow& b) {
        switch (sort) {
        case SortKey::Own:
            if (a.own != b.own) return a.own > b.own;
            if (a.total != b.total) return a.total > b.total;
            break;
        case SortKey::Total:
            if (a.total != b.total) return a.total > b.total;
            if (a.own != b.own) return a.own > b.own;
            break;
        case SortKey::Name:
            break;
        }
        if (name(a) != name(b)) return name(a) < name(b);
        return a.func < b.func;
    });
    const double all = double(std::max<uint64_t>(s.matchedSamples, 1));
    t.rows.reserve(rows.size());
    for (const FunctionRow& r : rows) {
        const FunctionInfo& f = s.functions[r.func];
        const size_t slash = f.file.rfind('/');
        std::string where = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
        if (f.firstLine > 0) where += ":" + std::to_string(f.firstLine);
        t.rows.push_back({escapeForDisplay(f.name), escapeForDisplay(where), r.own, r.total,
                          100.0 * double(r.own) / all, 100.0 * double(r.total) / all});
    }
    return t;
}

std::vector<ProfileThread> threadsBySamples(const ProfileSnapshot& s) {
    std::vector<ProfileThread> threads = s.threads;
    std::stable_sort(
        threads.begin(), threads.end(),
        [](const ProfileThread& a, const ProfileThread& b) { return a.samples > b.samples; });
    return threads;
}

std::string threadLabel(const ProfileThread& t) {
    std::string label = std::to_string(t.threadId);
    if (!t.name.empty())
        label += " " + escapeForDisplay(t.name);
    else if (t.mainThread)
        label += " (main)";
    return label;
}

} // namespace gilscope::tui
