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
    // The interpreter's module (a native frame's filename), where known: the one that holds
    // _PyRuntime. Else each stack's named eval loop or call machinery says it.
    StringId interpreter = kNoString;
};

// A native frame as the merge sees it: its name and kind, its stack pointer, and
// whether the symbol table named it.
struct NativeStackFrame {
    NativeSymbol symbol;
    uint64_t sp = 0;
};

// An eval loop's entry frame as the native stack's own memory holds it (a perf sample's
// stack copy): native frame `frame` runs an eval loop entered from Python frame `previous`.
struct SampledEntry {
    size_t frame = 0;
    uint64_t previous = 0;
};

struct MergeInput {
    std::span<const FrameId> python;          // leaf first
    std::span<const EvalEntry> entries;       // PythonRuns::Entries
    size_t syntheticLeaf = 0;                 // OnePerFrame: leading frames (<GC>) of run 0
    std::span<const NativeStackFrame> native; // leaf first
    std::span<const SampledEntry> sampled;    // 3.12+, where known
    // The Python stack was read after the native sample (without pausing), not at its
    // instant: the exceptions below apply.
    bool readAfterSample = false;
};

// How mergeStacks paired the runs.
enum class MergeHow {
    Exact,           // every run with its eval loop (by address, or by name)
    ByCaller,        // the innermost run by its calling frame (first exception)
    BeforeInnermost, // the innermost run had not begun at the sample (second exception)
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
//
// Two exceptions on 3.12+, for a stack read after its native sample, when the innermost
// run's entry frame lies in no eval loop but every other run pairs by address:
// - ByCaller (a callback that came back at another C depth): the innermost run pairs with
//   the one eval loop leafward of the others if that loop's own entry frame, as `sampled`
//   holds it, was entered from the same Python frame as the run's. The calling frame is
//   checked at both instants; the callback's frames are the read's.
// - BeforeInnermost (a callback that began after the sample): no eval loop (named, or
//   the interpreter's unnamed code) is leafward of the other runs on the sample. At its
//   instant the thread ran the other runs only: a run live then would have its eval loop
//   there, and its entry frame in it. So the innermost run is left out and the sample's
//   C frames end the stack. Its entry frame must still lie leafward of the outer loop.
bool mergeStacks(const MergeInput& in, const MergeOptions& options, const FrameRegistry& registry,
                 std::vector<FrameId>& out, std::string& why, MergeHow* how = nullptr);

} // namespace gilscope::native
