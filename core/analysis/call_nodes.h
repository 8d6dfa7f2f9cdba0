#pragma once

#include "core/analysis/chunked_column.h"
#include "core/gecko/flat_map.h"

#include <cstdint>

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

private:
    FlatMap64 index_;
    CallNodes nodes_;
};

} // namespace gilscope
