#pragma once

#include "core/native/native_symbols.h"
#include "core/sample/frame_registry.h"
#include "core/sample/stack_source.h"

#include <span>
#include <string>
#include <vector>

namespace gilscope::native {

// How the Python side of a thread's stack splits into eval-loop runs.
enum class PythonRuns {
    Entries,     // 3.11+: ThreadStack::evalEntries (with C-stack addresses on 3.12+)
    OnePerFrame, // 3.8-3.10: every Python frame has an eval-loop call of its own
};

struct MergeOptions {
    PythonRuns runs = PythonRuns::Entries;
    bool all = false; // --native-stacks=all: keep the eval loop and its plumbing
};

// A native frame as the merge sees it: its name and kind, its stack pointer, and
// whether the symbol table named it.
struct NativeStackFrame {
    NativeSymbol symbol;
    uint64_t sp = 0;
};

struct MergeInput {
    std::span<const FrameId> python;          // leaf first
    std::span<const EvalEntry> entries;       // PythonRuns::Entries
    size_t syntheticLeaf = 0;                 // OnePerFrame: leading frames (<GC>) of run 0
    std::span<const NativeStackFrame> native; // leaf first
};

// One stack of Python frames and native frames in call order, leaf first. Each run of
// Python frames replaces the eval-loop frame that runs it:
// - 3.12+: the frame whose stack range [its SP, its caller's SP) holds the run's entry
//   frame, an address on the C stack, so no symbol is needed (stripped builds work);
// - 3.8-3.11: the eval-loop frames by name, paired in order.
// By default the eval loop, CPython's call plumbing (by name, or any unnamed code of
// the interpreter's own module) and the frames below (rootward of) the outermost eval
// loop (_start, main, Py_RunMain...) are folded away, so that trees keep their Python
// roots. Returns false, with why, when the stacks do not pair up: such a sample is an
// error, never a guessed stack.
bool mergeStacks(const MergeInput& in, const MergeOptions& options, const FrameRegistry& registry,
                 std::vector<FrameId>& out, std::string& why);

} // namespace gilscope::native
