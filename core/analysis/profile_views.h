#pragma once

#include "core/analysis/call_tree.h"
#include "core/analysis/line_heat.h"
#include "core/analysis/profile_snapshot.h"

#include <cstdint>
#include <vector>

namespace gilscope {

// Aggregates computed from a ProfileSnapshot. "own" counts samples whose leaf is in the
// function (or line); "total" counts samples with the function anywhere on the stack,
// once per sample even when it recurses.
struct FunctionRow {
    uint32_t func = 0;
    uint64_t own = 0;
    uint64_t total = 0;
};
struct LineRow {
    uint32_t line = 0; // index into ProfileSnapshot::lines
    uint64_t own = 0;
    uint64_t total = 0;
};

// Functions (lines) with at least one sample, unsorted.
std::vector<FunctionRow> functionTable(const ProfileSnapshot& s);
// The same from the snapshot's top-down tree (one pass over its call nodes).
std::vector<FunctionRow> functionTable(const ProfileSnapshot& s, const CallTree& topDown);
std::vector<LineRow> lineTable(const ProfileSnapshot& s);

// Top-down: root -> outermost frames -> ... -> leaves (CallTree::topDown).
CallTree topDownTree(const ProfileSnapshot& s);
// Bottom-up: root -> leaf functions (total = their own samples) -> their callers -> ...
// Explored as asked (CallTree::bottomUp): `s` must outlive it.
CallTree bottomUpTree(const ProfileSnapshot& s);

// The tree the views show: topDownTree, or bottomUpTree when the snapshot is inverted
// (call_transforms.h); and the other one, for a bottom-up view.
CallTree shownTree(const ProfileSnapshot& s);
CallTree otherTree(const ProfileSnapshot& s);

// Frames in the deepest stack with kept samples (0: none).
uint32_t deepestStack(const ProfileSnapshot& s);

// Who calls one function and what it calls; each sample counted once per neighbour.
struct CallersCallees {
    uint64_t total = 0;               // samples with the function on the stack
    std::vector<FunctionRow> callers; // own unused; total = samples
    std::vector<FunctionRow> callees;
};
CallersCallees callersAndCallees(const ProfileSnapshot& s, uint32_t func);

// Per-line figures (a source view's heat column): core/analysis/line_heat.h.

} // namespace gilscope
