#pragma once

// Call-tree transforms, as the Firefox Profiler's: a stack of them reshapes the stacks of
// a ProfileSnapshot (merge a wrapper away, focus on a function, collapse recursion or a
// whole library, drop an idle loop, invert), and every view built from the snapshot
// (trees, flame graphs, tables, report, diff, HTML) shows the reshaped stacks. They run
// after the filter (state, threads, range), so they survive a change of it.

#include "core/analysis/profile_snapshot.h"
#include "core/util/cancel.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope {

// A function by name, not id, so a transform keeps its meaning as a live recording grows,
// in a .bin opened later, and on the command line. A name matches a function's name when
// equal or its last dotted part ("wrapper" matches "traced.<locals>.wrapper"); an empty
// file matches any file, else a function's file when equal or ending with "/" + file.
struct FunctionRef {
    std::string name;
    std::string file;
    bool operator==(const FunctionRef&) const = default;
};

// Whether ref names this function.
bool functionMatches(const FunctionRef& ref, const FunctionInfo& f);

enum class TransformKind : uint8_t {
    MergeFunction,           // remove it from every stack: its time goes to its caller
    MergeCallNode,           // remove it at this call path only
    FocusFunction,           // every stack cut to start at its outermost call; others dropped
    FocusSubtree,            // only the stacks through this call path, rooted at its end
    FocusModule,             // only the module's frames; stacks without any are dropped
    CollapseRecursion,       // A > B > A > C becomes A > C (every function: empty name)
    CollapseDirectRecursion, // A > A > A > C becomes A > C
    CollapseModule,          // a module's consecutive frames become one frame, "[django]"
    CollapseThirdParty,      // CollapseModule for every installed package
    DropFunction,            // drop the samples with it on the stack
    Invert,                  // leaf-rooted trees and flame graphs
};

struct CallTransform {
    TransformKind kind = TransformKind::MergeFunction;
    FunctionRef function;          // the function-level kinds
    std::vector<FunctionRef> path; // MergeCallNode, FocusSubtree: root first
    std::string module;            // FocusModule, CollapseModule: a moduleOf() name
    bool operator==(const CallTransform&) const = default;
};
using TransformStack = std::vector<CallTransform>;

// "Merge: wrapper", "Focus: handle_request", "Collapse: [django]", "Invert".
std::string transformLabel(const CallTransform& t);
// A stack's labels in order, "Collapse recursion › Merge: wrapper" (empty: none).
std::string transformsLabel(const TransformStack& stack);
// The frame a collapsed module becomes: "[django]", "[stdlib: asyncio]".
std::string collapsedModuleName(std::string_view file);

// The snapshot with the transforms applied in order: new nodes and self counts, the
// functions and lines of the input (plus one per collapsed module), matchedSamples less
// the samples dropped, and `inverted` set by Invert (ProfileSnapshot::inverted). The
// input itself is returned when the stack is empty. Returns nullopt when cancelled.
// Whether the stack adds functions (a collapsed module, "[django]"): their ids follow the
// recording's own, so they move as a live recording finds new functions.
bool transformsAddFunctions(const TransformStack& transforms);

// applyTransforms, and where each of the input's nodes went: its node in the result, or
// kDroppedNode (its samples were dropped, or it has none at or below it). The stack
// chart draws time-ordered stacks through it.
inline constexpr uint32_t kDroppedNode = UINT32_MAX;
struct MappedTransform {
    std::shared_ptr<const ProfileSnapshot> snapshot;
    std::vector<uint32_t> nodeMap;
};
std::optional<MappedTransform>
applyTransformsMapped(std::shared_ptr<const ProfileSnapshot> snapshot,
                      const TransformStack& transforms, const CancelToken* cancel = nullptr);

std::optional<std::shared_ptr<const ProfileSnapshot>>
applyTransforms(std::shared_ptr<const ProfileSnapshot> snapshot, const TransformStack& transforms,
                const CancelToken* cancel = nullptr);

} // namespace gilscope
