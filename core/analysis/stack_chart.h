#pragma once

#include "core/analysis/call_transforms.h"
#include "core/analysis/stack_interner.h"

#include <cstdint>
#include <vector>

namespace gilscope {

// The stack chart (time x stack, as the Firefox Profiler's Stack Chart): for a time
// window drawn at a pixel width, per thread, the stack each pixel column shows and the
// boxes that draws, merged across columns per depth. A pixel can show one stack, so a
// column shows the stack that covers most of its time (a sample covers its time up to
// the next sample of its thread, at most two intervals), never every sample.

// What a column's thread was doing, most of its time (the state strip).
enum class ColumnState : uint8_t { None, HoldsGil, WaitsForGil, OnCpu, OffCpu, Unknown };
ColumnState columnStateOf(uint32_t status); // ThreadStatus bits

struct StackChartRequest {
    std::vector<uint64_t> threads; // OS thread ids; empty means every thread
    uint64_t startUs = 0;          // absolute µs, [startUs, endUs)
    uint64_t endUs = 0;
    uint32_t widthPx = 0;
    size_t maxLanes = 32; // threads beyond these (least busy) are left out and counted
    // The views' call-tree transforms: each column's stack is drawn as they reshape it
    // (a dropped one draws nothing). Invert has no meaning over time and is left out.
    TransformStack transforms;
};

struct StackChartBox {
    uint32_t x0 = 0, x1 = 0; // pixel columns [x0, x1)
    uint32_t node = 0;       // the frame's node in StackChart::nodes
};

struct StackChartLane {
    uint64_t threadId = 0;
    bool mainThread = false;
    uint64_t samples = 0;           // samples of this thread in the window
    std::vector<uint32_t> leaf;     // per column: the shown stack's leaf node, or kNoLeaf
    std::vector<ColumnState> state; // per column
    std::vector<std::vector<StackChartBox>> depths; // depth 0 is the root frame
    static constexpr uint32_t kNoLeaf = UINT32_MAX;
};

struct StackChart {
    uint64_t originUs = 0; // the recording's first sample (absolute µs)
    uint64_t startUs = 0, endUs = 0;
    uint32_t widthPx = 0;
    uint64_t intervalUs = 0;
    uint64_t samplesInView = 0; // of the drawn lanes
    size_t lanesLeftOut = 0;    // busy threads beyond maxLanes
    StackNodes nodes;
    std::vector<FunctionInfo> functions;
    std::vector<LineKey> lines;
    std::vector<StackChartLane> lanes;
    // The recording's functions before the transforms (a collapse appends its own).
    size_t recordedFunctions = 0;

    // The column a time is drawn in (clamped), and the time a column starts at.
    uint32_t columnAt(uint64_t timeUs) const;
    uint64_t columnStartUs(uint32_t x) const;
};

} // namespace gilscope
