#include "core/analysis/profile_views.h"

#include <algorithm>
#include <unordered_map>

namespace gilscope {

namespace {

// Walks each stack with kept samples once, leaf to root: fn(leaf node, count, node on
// the path).
template <typename Fn>
void forEachSampledStack(const ProfileSnapshot& s, Fn&& fn) {
    for (uint32_t n = 1; n < s.selfCounts.size(); ++n)
        if (s.selfCounts[n]) fn(n, s.selfCounts[n]);
}

} // namespace

std::vector<FunctionRow> functionTable(const ProfileSnapshot& s) {
    std::vector<FunctionRow> rows(s.functions.size());
    std::vector<uint32_t> seen(s.functions.size(), 0); // stamp: leaf node of the walk
    forEachSampledStack(s, [&](uint32_t leaf, uint64_t count) {
        rows[s.nodes[leaf].func].own += count;
        for (uint32_t n = leaf; n != 0; n = s.nodes[n].parent) {
            const uint32_t f = s.nodes[n].func;
            if (seen[f] == leaf) continue; // recursion: once per sample
            seen[f] = leaf;
            rows[f].total += count;
        }
    });
    std::vector<FunctionRow> out;
    for (uint32_t f = 0; f < rows.size(); ++f)
        if (rows[f].total) out.push_back({f, rows[f].own, rows[f].total});
    return out;
}

std::vector<FunctionRow> functionTable(const ProfileSnapshot& s, const CallTree& topDown) {
    std::vector<FunctionRow> out;
    const auto figures = topDown.perFunction(s.functions.size());
    for (uint32_t f = 0; f < figures.size(); ++f)
        if (figures[f].total) out.push_back({f, figures[f].own, figures[f].total});
    return out;
}

std::vector<LineRow> lineTable(const ProfileSnapshot& s) {
    std::vector<LineRow> rows(s.lines.size());
    std::vector<uint32_t> seen(s.lines.size(), 0);
    forEachSampledStack(s, [&](uint32_t leaf, uint64_t count) {
        rows[s.nodes[leaf].line].own += count;
        for (uint32_t n = leaf; n != 0; n = s.nodes[n].parent) {
            const uint32_t l = s.nodes[n].line;
            if (seen[l] == leaf) continue;
            seen[l] = leaf;
            rows[l].total += count;
        }
    });
    std::vector<LineRow> out;
    for (uint32_t l = 0; l < rows.size(); ++l)
        if (rows[l].total) out.push_back({l, rows[l].own, rows[l].total});
    return out;
}

CallTree topDownTree(const ProfileSnapshot& s) {
    return CallTree::topDown(s);
}

CallTree bottomUpTree(const ProfileSnapshot& s) {
    return CallTree::bottomUp(s);
}

uint32_t deepestStack(const ProfileSnapshot& s) {
    std::vector<uint32_t> depth(s.nodes.size(), 0); // a parent's id is smaller
    uint32_t deepest = 0;
    for (uint32_t n = 1; n < s.nodes.size(); ++n) {
        depth[n] = depth[s.nodes[n].parent] + 1;
        if (n < s.selfCounts.size() && s.selfCounts[n]) deepest = std::max(deepest, depth[n]);
    }
    return deepest;
}

CallTree shownTree(const ProfileSnapshot& s) {
    return s.inverted ? bottomUpTree(s) : topDownTree(s);
}

CallTree otherTree(const ProfileSnapshot& s) {
    return s.inverted ? topDownTree(s) : bottomUpTree(s);
}

CallersCallees callersAndCallees(const ProfileSnapshot& s, uint32_t func) {
    CallersCallees out;
    std::unordered_map<uint32_t, uint64_t> callers, callees;
    std::vector<uint32_t> seenCaller, seenCallee; // per sample, tiny
    forEachSampledStack(s, [&](uint32_t leaf, uint64_t count) {
        seenCaller.clear();
        seenCallee.clear();
        bool found = false;
        uint32_t below = kNoFunction; // function of the frame called from this one
        for (uint32_t n = leaf; n != 0; n = s.nodes[n].parent) {
            const uint32_t f = s.nodes[n].func;
            if (f == func) {
                found = true;
                const uint32_t p = s.nodes[n].parent;
                if (p != 0) {
                    const uint32_t caller = s.nodes[p].func;
                    if (std::find(seenCaller.begin(), seenCaller.end(), caller) == seenCaller.end())
                        seenCaller.push_back(caller);
                }
                if (below != kNoFunction &&
                    std::find(seenCallee.begin(), seenCallee.end(), below) == seenCallee.end())
                    seenCallee.push_back(below);
            }
            below = f;
        }
        if (!found) return;
        out.total += count;
        for (uint32_t c : seenCaller)
            callers[c] += count;
        for (uint32_t c : seenCallee)
            callees[c] += count;
    });
    auto rows = [](const std::unordered_map<uint32_t, uint64_t>& m) {
        std::vector<FunctionRow> v;
        for (const auto& [f, n] : m)
            v.push_back({f, 0, n});
        std::sort(v.begin(), v.end(), [](const FunctionRow& a, const FunctionRow& b) {
            return a.total != b.total ? a.total > b.total : a.func < b.func;
        });
        return v;
    };
    out.callers = rows(callers);
    out.callees = rows(callees);
    return out;
}

} // namespace gilscope
