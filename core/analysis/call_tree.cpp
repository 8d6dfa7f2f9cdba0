#include "core/analysis/call_tree.h"

#include "core/analysis/call_nodes.h"
#include "core/gecko/flat_map.h"

#include <algorithm>

namespace gilscope {

uint32_t CallTree::addNode(uint32_t func, uint32_t parent) const {
    const auto n = uint32_t(func_.size());
    func_.push_back(func);
    parent_.push_back(parent);
    self_.push_back(0);
    total_.push_back(0);
    firstChild_.push_back(0);
    childCount_.push_back(0);
    row_.push_back(0);
    return n;
}

void CallTree::sortChildren(uint32_t n) const {
    auto* first = childList_.data() + firstChild_[n];
    std::sort(first, first + childCount_[n], [this](uint32_t a, uint32_t b) {
        return total_[a] != total_[b] ? total_[a] > total_[b] : func_[a] < func_[b];
    });
    for (uint32_t i = 0; i < childCount_[n]; ++i)
        row_[first[i]] = i;
}

CallTree CallTree::topDown(const ProfileSnapshot& s) {
    CallTree t;
    const size_t stacks = std::min(s.nodes.size(), s.selfCounts.size());
    // Each stack node's call node: the snapshot's (the interner derived them once), or
    // derived here for a snapshot made without them.
    const ChunkedColumn<uint32_t>* callOf = &s.callNodeOf;
    const CallNodes* calls = &s.callNodes;
    CallNodeIndex derived;
    ChunkedColumn<uint32_t> derivedOf;
    if (s.callNodeOf.size() < stacks || s.callNodes.empty()) {
        derivedOf.push_back(0);
        for (uint32_t n = 1; n < stacks; ++n)
            derivedOf.push_back(derived.of(derivedOf[s.nodes[n].parent], s.nodes[n].func));
        callOf = &derivedOf;
        calls = &derived.nodes();
    }
    // Samples per call node, then through it: a call node's id is larger than its parent's.
    const size_t count = calls->size();
    std::vector<uint64_t> self(count, 0);
    for (uint32_t n = 0; n < stacks; ++n)
        if (s.selfCounts[n]) self[(*callOf)[n]] += s.selfCounts[n];
    std::vector<uint64_t> total(self);
    for (size_t c = count; c-- > 1;)
        total[(*calls)[c].parent] += total[c];
    // The call nodes with samples, in their order (parents first).
    size_t kept = 1;
    for (size_t c = 1; c < count; ++c)
        kept += total[c] != 0;
    for (auto* v : {&t.func_, &t.parent_, &t.firstChild_, &t.childCount_, &t.row_})
        v->reserve(kept);
    t.self_.reserve(kept);
    t.total_.reserve(kept);
    t.addNode(kNoFunction, 0);
    if (count == 0) return t;
    t.self_[0] = self[0];
    t.total_[0] = total[0];
    std::vector<uint32_t> treeNode(count, 0);
    for (uint32_t c = 1; c < count; ++c) {
        if (!total[c]) continue;
        const uint32_t node = t.addNode((*calls)[c].func, treeNode[(*calls)[c].parent]);
        t.self_[node] = self[c];
        t.total_[node] = total[c];
        treeNode[c] = node;
    }
    // Children as ranges: count, place, sort each.
    for (uint32_t n = 1; n < t.size(); ++n)
        ++t.childCount_[t.parent_[n]];
    uint32_t at = 0;
    for (uint32_t n = 0; n < t.size(); ++n) {
        t.firstChild_[n] = at;
        at += t.childCount_[n];
    }
    t.childList_.resize(at);
    std::vector<uint32_t> filled(t.size(), 0);
    for (uint32_t n = 1; n < t.size(); ++n) {
        const uint32_t p = t.parent_[n];
        t.childList_[t.firstChild_[p] + filled[p]++] = n;
    }
    for (uint32_t n = 0; n < t.size(); ++n)
        if (t.childCount_[n] > 0) t.sortChildren(n);
    return t;
}

CallTree CallTree::bottomUp(const ProfileSnapshot& s) {
    CallTree t;
    t.stacks_ = &s;
    t.addNode(kNoFunction, 0);
    t.tailBegin_.push_back(0);
    const size_t stacks = std::min(s.nodes.size(), s.selfCounts.size());
    for (uint32_t n = 1; n < stacks; ++n)
        if (s.selfCounts[n]) {
            t.tails_.push_back({n, s.selfCounts[n]});
            t.total_[0] += s.selfCounts[n];
        }
    t.tailEnd_.push_back(uint32_t(t.tails_.size()));
    t.firstChild_[0] = kUnexplored;
    t.explore(0); // the leaf functions: every view starts there
    return t;
}

void CallTree::explore(uint32_t n) const {
    if (firstChild_[n] != kUnexplored) return;
    const StackNodes& nodes = stacks_->nodes;
    const uint32_t begin = tailBegin_[n], end = tailEnd_[n];
    // The frame above each tail: for the root, the leaf itself; below it, its caller.
    const auto next = [&](uint32_t stackNode) {
        return n == 0 ? stackNode : nodes[stackNode].parent;
    };
    // Group by function: a child per function, in the order first seen.
    FlatMap64 childOf;
    std::vector<uint32_t> group(end - begin, UINT32_MAX);
    std::vector<uint32_t> made; // the new children
    for (uint32_t i = begin; i < end; ++i) {
        const uint32_t up = next(tails_[i].node);
        if (up == 0) continue; // the stack ends at this node: its self, counted already
        const uint32_t func = nodes[up].func;
        const auto [c, added] = childOf.tryEmplace(func, uint32_t(func_.size()));
        if (added) {
            addNode(func, n);
            made.push_back(c);
        }
        group[i - begin] = c;
        total_[c] += tails_[i].count;
        if (nodes[up].parent == 0) self_[c] += tails_[i].count; // the outermost frame
    }
    // The children's tails, each child's contiguous, appended after everyone's.
    std::vector<uint32_t> offset(made.size() + 1, 0);
    const uint32_t firstMade = made.empty() ? 0 : made.front();
    for (uint32_t i = begin; i < end; ++i)
        if (group[i - begin] != UINT32_MAX) ++offset[group[i - begin] - firstMade + 1];
    for (size_t k = 1; k < offset.size(); ++k)
        offset[k] += offset[k - 1];
    const auto base = uint32_t(tails_.size());
    tails_.resize(base + offset.back());
    tailBegin_.resize(func_.size(), 0);
    tailEnd_.resize(func_.size(), 0);
    for (uint32_t c : made) {
        tailBegin_[c] = base + offset[c - firstMade];
        tailEnd_[c] = tailBegin_[c];
        firstChild_[c] = kUnexplored;
    }
    for (uint32_t i = begin; i < end; ++i) {
        const uint32_t c = group[i - begin];
        if (c == UINT32_MAX) continue;
        tails_[tailEnd_[c]++] = {next(tails_[i].node), tails_[i].count};
    }
    firstChild_[n] = uint32_t(childList_.size());
    childCount_[n] = uint32_t(made.size());
    childList_.insert(childList_.end(), made.begin(), made.end());
    sortChildren(n);
}

std::span<const uint32_t> CallTree::children(uint32_t n) const {
    if (firstChild_[n] == kUnexplored) explore(n);
    return {childList_.data() + firstChild_[n], childCount_[n]};
}

bool CallTree::hasChildren(uint32_t n) const {
    if (firstChild_[n] != kUnexplored) return childCount_[n] > 0;
    return total_[n] > self_[n]; // some stack goes on past this node
}

uint32_t CallTree::child(uint32_t n, uint32_t func) const {
    for (uint32_t c : children(n))
        if (func_[c] == func) return c;
    return 0;
}

void CallTree::exploreAll(uint64_t minTotal) const {
    std::vector<uint32_t> todo{0};
    while (!todo.empty()) {
        const uint32_t n = todo.back();
        todo.pop_back();
        if (n != 0 && total_[n] < minTotal) continue;
        for (uint32_t c : children(n))
            todo.push_back(c);
    }
}

} // namespace gilscope
