#pragma once

#include "core/analysis/chunked_column.h"
#include "core/gecko/flat_map.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace gilscope {

inline constexpr uint32_t kNoFunction = UINT32_MAX;

// A call node: a path of functions from the root, whatever line each frame was at (the
// Firefox Profiler's call node table). The interned stacks (one node per frame: function
// and line) merge into call nodes; a top-down call tree is the call nodes with their
// sample counts. Derived once per stack node, as stacks are interned, so that a query
// only adds counts up.
struct CallNodeInfo {
    uint32_t parent = 0; // call node 0 is the root
    uint32_t func = kNoFunction;
};
using CallNodes = ChunkedColumn<CallNodeInfo>;

// Finds or makes the call node of a function under a call node. Parents come first: a
// call node's id is larger than its parent's.
class CallNodeIndex {
public:
    CallNodeIndex() { nodes_.push_back({}); }
    uint32_t of(uint32_t parent, uint32_t func) {
        const uint64_t key = uint64_t{parent} << 32 | func;
        const auto [node, added] = index_.tryEmplace(key, uint32_t(nodes_.size()));
        if (added) nodes_.push_back({parent, func});
        return node;
    }
    const CallNodes& nodes() const { return nodes_; }
    void reserve(size_t callNodes) { index_.reserve(callNodes); }
    void freeze() { index_ = FlatMap64(); } // no more call nodes: the lookup goes

private:
    FlatMap64 index_;
    CallNodes nodes_;
};

// The call nodes' children, as ranges of one array, and whether each call node's function
// is already on its path above it (recursion): derived from a call node table once, and
// shared by every query's tree (a finished recording's table no longer changes).
struct CallNodeChildren {
    std::vector<uint32_t> begin; // size() + 1 entries: node n's children are
    std::vector<uint32_t> list;  // list[begin[n] .. begin[n + 1])
    std::vector<uint8_t> recursive;
    size_t size() const { return recursive.size(); }
    static std::shared_ptr<const CallNodeChildren> build(const CallNodes& calls);
};

} // namespace gilscope
