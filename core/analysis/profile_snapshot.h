#pragma once

#include "core/analysis/profile_filter.h"
#include "core/analysis/stack_interner.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gilscope {

struct ProfileThread {
    uint64_t threadId = 0;
    bool mainThread = false;
    uint64_t samples = 0; // every state, whole recording
    std::string name;     // see ThreadName; empty when unknown (a `.bin` keeps no names)
};

// The result of one query: an immutable copy of the interned stacks and tables at the
// time of the query, with the filtered sample count of every stack. Plain values, so it
// can be handed from a worker thread to the GUI.
struct ProfileSnapshot {
    ProfileFilter filter;
    uint64_t originUs = 0; // first sample's time; record times count from here
    uint64_t lastUs = 0;   // last sample's time
    uint64_t intervalUs = 0;
    int recordedMode = -1;        // ProfilingMode the producer stamped (-1: unknown)
    int pythonMinor = 0;          // the target's 3.x (0: unknown), for opcode names
    bool freeThreaded = false;    // the GIL bits say attached and stopped (thread_status.h)
    uint64_t recordedSamples = 0; // thread-samples in the recording
    uint64_t matchedSamples = 0;  // thread-samples the filter kept
    uint64_t contendedTicks = 0;  // GilContention: ticks in which some thread waited
    bool finished = false;
    // What the model could not keep, and why (a spill that failed, threads past the
    // 65,536th); empty when every sample was kept.
    std::string notKept;
    // Call-tree transforms (call_transforms.h): the trees are leaf-rooted (the views show
    // bottomUpTree where they would show topDownTree), and the samples they dropped.
    bool inverted = false;
    uint64_t transformDropped = 0;

    StackNodes nodes; // shared with the model (ChunkedColumn): a query copies no node
    // Each node's call node, and the call nodes (call_nodes.h): the top-down tree adds
    // counts up per call node instead of merging nodes per query. Empty in a snapshot
    // made by hand (tests): the tree then derives them.
    ChunkedColumn<uint32_t> callNodeOf;
    CallNodes callNodes;
    // The call nodes' children (shared while the table is unchanged); null: derived when
    // a tree needs them.
    std::shared_ptr<const CallNodeChildren> callChildren;
    std::vector<FunctionInfo> functions;
    std::vector<LineKey> lines;
    std::vector<ProfileThread> threads;
    std::vector<uint64_t> selfCounts; // per node: kept samples whose leaf is that node
};

} // namespace gilscope
