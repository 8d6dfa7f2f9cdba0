#include "tui/live_table.h"

#include "core/analysis/profile_views.h"
#include "core/gecko/opcode_names.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

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

namespace {

// Per function, the instruction most of its own samples ran, and its share of them.
std::vector<std::string> topInstructions(const ProfileSnapshot& s) {
    std::vector<std::unordered_map<uint32_t, uint64_t>> byFunction(s.functions.size());
    std::vector<uint64_t> own(s.functions.size(), 0);
    bool any = false;
    for (size_t n = 1; n < s.nodes.size() && n < s.selfCounts.size(); ++n) {
        const uint64_t count = s.selfCounts[n];
        if (!count || s.nodes[n].func >= s.functions.size()) continue;
        own[s.nodes[n].func] += count;
        const uint32_t op = s.nodes[n].opcode();
        if (op == kNoOpcode) continue;
        byFunction[s.nodes[n].func][op] += count;
        any = true;
    }
    std::vector<std::string> out(s.functions.size());
    if (!any) return out;
    for (size_t f = 0; f < out.size(); ++f) {
        uint32_t best = kNoOpcode;
        uint64_t most = 0;
        for (const auto& [op, count] : byFunction[f])
            if (count > most || (count == most && op < best)) {
                best = op;
                most = count;
            }
        if (!most) continue;
        const long pct = std::lround(100.0 * double(most) / double(std::max<uint64_t>(own[f], 1)));
        out[f] = formatOpcode(best, s.pythonMinor) + " " + std::to_string(pct) + "%";
    }
    return out;
}

} // namespace

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
    const std::vector<std::string> instructions = topInstructions(s);
    t.rows.reserve(rows.size());
    for (const FunctionRow& r : rows) {
        const FunctionInfo& f = s.functions[r.func];
        const size_t slash = f.file.rfind('/');
        std::string where = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
        if (f.firstLine > 0) where += ":" + std::to_string(f.firstLine);
        t.rows.push_back({escapeForDisplay(f.name), escapeForDisplay(where), r.own, r.total,
                          100.0 * double(r.own) / all, 100.0 * double(r.total) / all,
                          instructions[r.func]});
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
