#include "core/analysis/call_tree.h"

#include <algorithm>

namespace gilscope {

namespace {

// Each stack node's call node, when a snapshot was made without them (by hand, in tests).
struct Derived {
    ChunkedColumn<uint32_t> callOf;
    CallNodeIndex index;
};

} // namespace

CallTree CallTree::topDown(const ProfileSnapshot& s) {
    CallTree t;
    t.topDown_ = true;
    const size_t stacks = std::min(s.nodes.size(), s.selfCounts.size());
    const ChunkedColumn<uint32_t>* callOf = &s.callNodeOf;
    t.calls_ = s.callNodes;
    t.callChildren_ = s.callChildren;
    Derived derived;
    if (s.callNodeOf.size() < stacks || s.callNodes.empty()) {
        derived.callOf.push_back(0);
        for (uint32_t n = 1; n < stacks; ++n)
            derived.callOf.push_back(
                derived.index.of(derived.callOf[s.nodes[n].parent], s.nodes[n].func));
        callOf = &derived.callOf;
        t.calls_ = derived.index.nodes();
        t.callChildren_ = nullptr;
    }
    if (!t.callChildren_ || t.callChildren_->size() != t.calls_.size())
        t.callChildren_ = CallNodeChildren::build(t.calls_);
    // Samples per call node, then through it: a call node's id is larger than its parent's.
    const size_t count = t.calls_.size();
    t.self_.assign(count, 0);
    for (uint32_t n = 0; n < stacks; ++n)
        if (s.selfCounts[n]) t.self_[(*callOf)[n]] += s.selfCounts[n];
    t.total_ = t.self_;
    for (size_t c = count; c-- > 1;)
        t.total_[t.calls_[c].parent] += t.total_[c];
    if (count > 0) t.explore(0); // every view starts there
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
    t.explore(0); // the leaf functions: every view starts there
    return t;
}

uint32_t CallTree::addNode(uint32_t func, uint32_t parent) const {
    const auto n = uint32_t(total_.size());
    func_.push_back(func);
    parent_.push_back(parent);
    self_.push_back(0);
    total_.push_back(0);
    return n;
}

void CallTree::exploreTopDown(uint32_t n, std::vector<uint32_t>& found) const {
    const CallNodeChildren& index = *callChildren_;
    for (uint32_t i = index.begin[n]; i < index.begin[n + 1]; ++i)
        if (total_[index.list[i]]) found.push_back(index.list[i]);
}

void CallTree::exploreBottomUp(uint32_t n, std::vector<uint32_t>& found) const {
    const StackNodes& nodes = stacks_->nodes;
    const uint32_t begin = tailBegin_[n], end = tailEnd_[n];
    // The frame above each tail: for the root, the leaf itself; below it, its caller.
    const auto next = [&](uint32_t stackNode) {
        return n == 0 ? stackNode : nodes[stackNode].parent;
    };
    // Group by function: a child per function, in the order first seen.
    FlatMap64 childOf;
    std::vector<uint32_t> group(end - begin, UINT32_MAX);
    for (uint32_t i = begin; i < end; ++i) {
        const uint32_t up = next(tails_[i].node);
        if (up == 0) continue; // the stack ends at this node: its self, counted already
        const uint32_t func = nodes[up].func;
        const auto [c, added] = childOf.tryEmplace(func, uint32_t(total_.size()));
        if (added) {
            addNode(func, n);
            found.push_back(c);
        }
        group[i - begin] = c;
        total_[c] += tails_[i].count;
        if (nodes[up].parent == 0) self_[c] += tails_[i].count; // the outermost frame
    }
    // The children's tails, each child's contiguous, appended after everyone's.
    std::vector<uint32_t> offset(found.size() + 1, 0);
    const uint32_t firstMade = found.empty() ? 0 : found.front();
    for (uint32_t i = begin; i < end; ++i)
        if (group[i - begin] != UINT32_MAX) ++offset[group[i - begin] - firstMade + 1];
    for (size_t k = 1; k < offset.size(); ++k)
        offset[k] += offset[k - 1];
    const auto base = uint32_t(tails_.size());
    tails_.resize(base + offset.back());
    tailBegin_.resize(total_.size(), 0);
    tailEnd_.resize(total_.size(), 0);
    for (uint32_t c : found)
        tailBegin_[c] = tailEnd_[c] = base + offset[c - firstMade];
    for (uint32_t i = begin; i < end; ++i)
        if (const uint32_t c = group[i - begin]; c != UINT32_MAX)
            tails_[tailEnd_[c]++] = {next(tails_[i].node), tails_[i].count};
}

void CallTree::explore(uint32_t n) const {
    if (explored_.find(n)) return;
    std::vector<uint32_t> found;
    if (topDown_)
        exploreTopDown(n, found);
    else
        exploreBottomUp(n, found);
    std::sort(found.begin(), found.end(), [this](uint32_t a, uint32_t b) {
        return total_[a] != total_[b] ? total_[a] > total_[b] : func(a) < func(b);
    });
    const auto first = uint32_t(childList_.size());
    explored_.tryEmplace(n, uint32_t(ranges_.size()));
    ranges_.emplace_back(first, uint32_t(found.size()));
    for (uint32_t i = 0; i < found.size(); ++i)
        rows_.tryEmplace(found[i], i);
    childList_.insert(childList_.end(), found.begin(), found.end());
}

std::span<const uint32_t> CallTree::children(uint32_t n) const {
    explore(n);
    const auto [first, count] = ranges_[*explored_.find(n)];
    return {childList_.data() + first, count};
}

uint32_t CallTree::row(uint32_t n) const {
    const uint32_t* r = rows_.find(n);
    return r ? *r : 0;
}

uint32_t CallTree::child(uint32_t n, uint32_t func) const {
    for (uint32_t c : children(n))
        if (this->func(c) == func) return c;
    return 0;
}

void CallTree::exploreAll(uint64_t minTotal) const {
    std::vector<uint32_t> todo{0};
    while (!todo.empty()) {
        const uint32_t n = todo.back();
        todo.pop_back();
        if (n != 0 && (total_[n] == 0 || total_[n] < minTotal)) continue;
        for (uint32_t c : children(n))
            todo.push_back(c);
    }
}

std::vector<CallTree::FunctionFigures> CallTree::perFunction(size_t functions) const {
    std::vector<FunctionFigures> out(functions);
    if (!topDown_) return out;
    for (uint32_t c = 1; c < total_.size(); ++c) {
        if (!total_[c]) continue;
        const uint32_t f = calls_[c].func;
        if (f >= functions) continue;
        out[f].own += self_[c];
        if (!callChildren_->recursive[c]) out[f].total += total_[c]; // its outermost call
    }
    return out;
}

} // namespace gilscope
