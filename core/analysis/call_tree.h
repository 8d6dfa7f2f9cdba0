#pragma once

#include "core/analysis/call_nodes.h"
#include "core/analysis/profile_snapshot.h"
#include "core/gecko/flat_map.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace gilscope {

// A function-keyed call tree of a snapshot (the Firefox Profiler's call tree), explored as
// it is asked: a node's children are found, with their figures and in their order (by
// total, then function), the first time they are asked for. Node 0 is the root (func ==
// kNoFunction, total == every kept sample).
//
// Top-down, a node is a call node (call_nodes.h: a path of functions, derived once per
// stack as the recording is interned): a query only adds the samples up per call node and
// through it (two passes over arrays), and the children it shows are taken from the call
// nodes' own (CallNodeChildren). Bottom-up (inverted), a tree can have a node for nearly
// every frame of every distinct stack (tens of millions for an hour's recording): a node's
// callers are found from the stacks that end in its path. Either way only what is shown is
// explored: a view's expanded rows, a flame graph's frames wide enough to draw.
//
// Exploring is not thread-safe: one thread at a time (the worker that made the tree, then
// the GUI thread that shows it). `s` must outlive the tree (the analysis result holds both).
class CallTree {
public:
    CallTree() = default;

    static CallTree topDown(const ProfileSnapshot& s);
    // Leaf-rooted: the root's children are the functions samples ended in, a node's
    // children its callers; `self` counts samples whose outermost frame ends the path.
    static CallTree bottomUp(const ProfileSnapshot& s);

    // Node ids below size(); top-down, every call node is one (most with no samples).
    size_t size() const { return total_.size(); }
    bool empty() const { return total_.empty(); }
    uint32_t func(uint32_t n) const { return topDown_ ? calls_[n].func : func_[n]; }
    uint32_t parent(uint32_t n) const { return topDown_ ? calls_[n].parent : parent_[n]; }
    uint64_t self(uint32_t n) const { return self_[n]; }
    uint64_t total(uint32_t n) const { return total_[n]; }
    // Found when first asked for. The span is valid until another node is explored.
    std::span<const uint32_t> children(uint32_t n) const;
    // A node's place among its parent's children (their order above); its parent's
    // children must have been asked for (a node is only known through them).
    uint32_t row(uint32_t n) const;
    // Whether a node has children, without finding them (a view's expander).
    bool hasChildren(uint32_t n) const { return total_[n] > self_[n]; }
    // The child of n for func, or 0 when none.
    uint32_t child(uint32_t n, uint32_t func) const;
    // Finds every node whose total is at least minTotal (0: every node with samples): a
    // consumer that walks the whole tree (the HTML flame graph, a diff) explores it once.
    void exploreAll(uint64_t minTotal = 0) const;

    // Top-down: own and total samples per function (profile_views' FunctionRow), from the
    // call nodes (a function recursing on a path counts once per sample).
    struct FunctionFigures {
        uint64_t own = 0, total = 0;
    };
    std::vector<FunctionFigures> perFunction(size_t functions) const;

private:
    void explore(uint32_t n) const;
    void exploreTopDown(uint32_t n, std::vector<uint32_t>& found) const;
    void exploreBottomUp(uint32_t n, std::vector<uint32_t>& found) const;
    uint32_t addNode(uint32_t func, uint32_t parent) const; // bottom-up

    bool topDown_ = false;
    // Per node: samples ending there and through it.
    mutable std::vector<uint64_t> self_, total_;
    // The children found so far: per explored node, (first << 32 | count) into childList_;
    // and each found node's row.
    mutable FlatMap64 explored_, rows_; // node -> index into ranges_ / its row
    mutable std::vector<std::pair<uint32_t, uint32_t>> ranges_; // (first, count)
    mutable std::vector<uint32_t> childList_;

    // Top-down: the call nodes and their children.
    CallNodes calls_;
    std::shared_ptr<const CallNodeChildren> callChildren_;

    // Bottom-up: the nodes made so far, and the stacks each node's path ends: (stack node
    // at this depth, samples), as ranges of tails_.
    mutable std::vector<uint32_t> func_, parent_;
    struct Tail {
        uint32_t node;
        uint64_t count;
    };
    const ProfileSnapshot* stacks_ = nullptr;
    mutable std::vector<Tail> tails_;
    mutable std::vector<uint32_t> tailBegin_, tailEnd_;
};

} // namespace gilscope
