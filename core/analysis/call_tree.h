#pragma once

#include "core/analysis/profile_snapshot.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace gilscope {

// A function-keyed call tree of a snapshot, in columns (the Firefox Profiler's call node
// table): one entry per node in each of func, parent, self and total, and each node's
// children as one range of childList, sorted by total (then function). Node 0 is the root
// (func == kNoFunction, total == every kept sample).
//
// Top-down trees are built whole, in one pass over the snapshot's interned stacks: as many
// nodes as distinct call paths, no allocation per node. Bottom-up (inverted) trees can have
// a node for nearly every frame of every distinct stack (tens of millions for an hour's
// recording), so they are built as they are explored: a node's children are found the
// first time they are asked for, from the stacks that end in its path (the Firefox
// Profiler's inverted call node info does the same). Exploring is not thread-safe: one
// thread at a time (the worker that made the tree, then the GUI thread that shows it).
class CallTree {
public:
    CallTree() = default;

    // Every node, at once.
    static CallTree topDown(const ProfileSnapshot& s);
    // Leaf-rooted: the root's children are the functions samples ended in, a node's
    // children its callers; `self` counts samples whose outermost frame ends the path.
    // `s` must outlive the tree (the analysis result holds both).
    static CallTree bottomUp(const ProfileSnapshot& s);

    size_t size() const { return func_.size(); } // nodes found so far
    bool empty() const { return func_.empty(); }
    uint32_t func(uint32_t n) const { return func_[n]; }
    uint32_t parent(uint32_t n) const { return parent_[n]; }
    uint64_t self(uint32_t n) const { return self_[n]; }
    uint64_t total(uint32_t n) const { return total_[n]; }
    // Found when first asked for, in a bottom-up tree. The span is valid until another
    // node is explored.
    std::span<const uint32_t> children(uint32_t n) const;
    // A node's place among its parent's children (their order above).
    uint32_t row(uint32_t n) const { return row_[n]; }
    // Whether a node has children, without finding them (a view's expander).
    bool hasChildren(uint32_t n) const;
    // The child of n for func, or 0 when none.
    uint32_t child(uint32_t n, uint32_t func) const;
    // Finds every node whose total is at least minTotal (0: every node): a consumer that
    // walks the whole tree (the HTML flame graph, a diff) explores it once, up front.
    void exploreAll(uint64_t minTotal = 0) const;

private:
    uint32_t addNode(uint32_t func, uint32_t parent) const;
    void explore(uint32_t n) const; // bottom-up: finds n's children
    void sortChildren(uint32_t n) const;

    static constexpr uint32_t kUnexplored = UINT32_MAX;
    // The tree's own columns; mutable: a bottom-up tree grows as it is explored.
    mutable std::vector<uint32_t> func_, parent_;
    mutable std::vector<uint64_t> self_, total_;
    mutable std::vector<uint32_t> firstChild_, childCount_; // into childList_
    mutable std::vector<uint32_t> row_;
    mutable std::vector<uint32_t> childList_;

    // Bottom-up: the stacks each node's path ends: (stack node at this depth, samples).
    struct Tail {
        uint32_t node;
        uint64_t count;
    };
    const ProfileSnapshot* stacks_ = nullptr;
    mutable std::vector<Tail> tails_;
    mutable std::vector<uint32_t> tailBegin_, tailEnd_; // per node; kUnexplored in firstChild_
};

} // namespace gilscope
