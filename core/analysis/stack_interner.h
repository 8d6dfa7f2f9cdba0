#pragma once

#include "core/analysis/analysis_ids.h"
#include "core/analysis/call_nodes.h"
#include "core/gecko/flat_map.h"
#include "core/sample/frame_registry.h"

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope {

// A function as the views show it: name and file. The .bin format and the reader give
// the executing line, not co_firstlineno, so firstLine is the smallest line seen.
struct FunctionInfo {
    std::string name;
    std::string file;
    int32_t firstLine = kNoLocation;
    bool native = false; // --native-stacks: a C function, `file` its library
};

// One source line of one function.
struct LineKey {
    uint32_t func = 0;
    int32_t line = kNoLocation;
};

// A node of the interned prefix tree of stacks (root first). Node 0 is the empty
// stack; a parent always has a smaller id than its children.
struct StackNode {
    uint32_t parent = 0;
    uint32_t func = kNoFunction;
    uint32_t line = 0; // index into lines()
    uint32_t flags = kNoOpcode << kOpcodeShift;
    static constexpr uint32_t kGc = 1; // a <GC> frame is on the stack at or above this node
    // Bits 8-15: the instruction the frame executed (--opcodes), kNoOpcode when unknown.
    static constexpr uint32_t kOpcodeShift = 8;
    static constexpr uint32_t kOpcodeMask = 0xffu << kOpcodeShift;
    uint8_t opcode() const { return static_cast<uint8_t>(flags >> kOpcodeShift); }
};
// The stacks' nodes: a query's snapshot shares them with the interner (ChunkedColumn).
using StackNodes = ChunkedColumn<StackNode>;

// Interns stacks into the prefix tree, functions and lines into small dense ids.
// Runs on the producing thread (it reads the FrameRegistry).
class StackInterner {
public:
    StackInterner();

    // Per producer thread: the last stack and its path, so a stack that shares its root
    // part with the previous one costs only the frames that changed.
    struct PathCache {
        std::vector<FrameId> frames; // leaf first, as given
        std::vector<uint32_t> path;  // node per depth, root first
    };

    void setRegistry(const FrameRegistry* registry) { registry_ = registry; }
    // frames: leaf first. Returns the leaf's node (StackId{0} for an empty stack).
    StackId intern(PathCache& cache, std::span<const FrameId> frames);

    // No more stacks will come (the recording ended): lets go of what only interning
    // needs (the lookups by frame and by stack: most of the interner's memory). intern()
    // must not be called after.
    void freeze();

    const StackNodes& nodes() const { return nodes_; }
    // Each stack node's call node (call_nodes.h), and the call nodes.
    const ChunkedColumn<uint32_t>& callNodeOf() const { return callNodeOf_; }
    const CallNodes& callNodes() const { return callNodes_.nodes(); }
    const std::vector<FunctionInfo>& functions() const { return functions_; }
    const std::vector<LineKey>& lines() const { return lines_; }

private:
    struct FrameMeta {
        uint32_t func = kNoFunction;
        uint32_t line = 0;
        bool gc = false;
        uint8_t opcode = kNoOpcode;
        bool filtered = false; // CPython's profiler bootstrap: never shown
        bool known = false;
    };
    const FrameMeta& meta(FrameId id);
    uint32_t child(uint32_t parent, FrameId frame);
    // Whether node's path (leaf to root) is exactly frames; fills path when it is.
    bool matches(uint32_t node, std::span<const FrameId> frames, std::vector<uint32_t>& path) const;

    const FrameRegistry* registry_ = nullptr;
    IdVector<FrameId, FrameMeta> frameMeta_;
    std::vector<uint32_t> scratch_;
    StackNodes nodes_;
    ChunkedColumn<uint32_t> callNodeOf_; // per stack node
    CallNodeIndex callNodes_;
    std::vector<FrameId> nodeFrames_; // per node
    FlatMap64 children_;              // parent << 32 | frame -> node
    FlatMap64 stackIds_; // hash of a whole stack -> node (verified on use, as hashes collide)
    std::vector<FunctionInfo> functions_;
    std::unordered_map<uint64_t, uint32_t> functionIds_; // filename << 32 | funcname
    std::vector<LineKey> lines_;
    std::unordered_map<uint64_t, uint32_t> lineIds_; // func << 32 | line
};

} // namespace gilscope
