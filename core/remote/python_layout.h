#pragma once

#include "core/common/error.h"
#include "core/util/python_version.h"

#include <algorithm>
#include <cstdint>
#include <span>

namespace gilscope::remote {

// Where each field the stack walker needs lives, for one CPython build. Filled from a
// built-in table (3.8-3.12) or from the target's own _Py_DebugOffsets (3.13+).
// An offset of kAbsent means "this version has no such field".
inline constexpr uint64_t kAbsent = ~uint64_t{0};

// Where the GC keeps what gc.get_stats() returns (core/remote/gc_counts_probe.cpp has the
// measured values): per generation, `entries` running totals of entrySize bytes from
// `items`; with a ring (3.15) the int8 at `index` says which is the latest.
struct GcStatsLayout {
    struct Generation {
        uint64_t items = 0, entries = 1, index = ~uint64_t{0};
    };
    uint64_t entrySize = 0;                  // 0: this build's counts are not located
    uint64_t collections = 0, collected = 8; // Py_ssize_t, within an entry
    Generation generations[3];
    uint64_t size = 0;           // bytes read in one copy
    uint64_t seq = ~uint64_t{0}; // uint32 update_seq, odd while written (3.15.1+)
    bool behindPointer = false;  // 3.15: the stats address holds a pointer to them
    bool valid() const;
};

struct PythonLayout {
    uint8_t major = 3, minor = 0, micro = 0;
    uint32_t versionHex = 0;
    bool freeThreaded = false;

    // _PyRuntimeState
    uint64_t rtInterpretersHead = kAbsent;
    uint64_t rtMainThread = kAbsent;   // pthread_t of the main thread (<= 3.12)
    uint64_t rtGilHolder = kAbsent;    // ceval.gil.last_holder (<= 3.11)
    uint64_t rtGilLocked = kAbsent;    // ceval.gil.locked (<= 3.11)
    uint64_t rtGcCollecting = kAbsent; // 3.8 keeps the GC state in the runtime
    uint64_t rtGcStats = kAbsent;      // 3.8: _PyRuntime.gc.generation_stats

    // PyInterpreterState
    uint64_t inNext = kAbsent, inId = kAbsent, inThreadsHead = kAbsent;
    uint64_t inThreadsMain = kAbsent; // 3.13+
    uint64_t inGcCollecting = kAbsent;
    uint64_t inGcStats = kAbsent;    // interp->gc.generation_stats (3.9+)
    GcStatsLayout gcStats;           // its elements
    uint64_t inGilPointer = kAbsent; // 3.12: interp->ceval.gil (struct _gil_runtime_state*)
    uint64_t inGilHolder = kAbsent;  // interp->_gil.last_holder (3.12 own GIL, 3.13+)
    uint64_t inGilLocked = kAbsent;  // interp->_gil.locked
    uint64_t inOwnGil = kAbsent;     // offset of interp->_gil (3.12), to recognise the common case
    uint64_t inCodeGeneration = kAbsent; // 3.14+: bumps when code objects are freed
    uint64_t inModules = kAbsent;        // sys.modules (modules / imports.modules): thread names
    static constexpr uint64_t kGilHolderInStruct = 8, kGilLockedInStruct = 16;
    // unsigned long switch_number: bumped when a thread other than the last holder takes
    // the GIL (3.8 - 3.15 with a GIL; see UnchangedStacks).
    static constexpr uint64_t kGilSwitchesInStruct = 24;
    static constexpr uint64_t kGilStructSize = 208; // sizeof(struct _gil_runtime_state)

    // PyThreadState
    uint64_t tsSize = 0, tsNext = kAbsent, tsInterp = kAbsent;
    uint64_t tsFrame = kAbsent;        // <= 3.10: PyFrameObject*
    uint64_t tsCframe = kAbsent;       // 3.11/3.12: _PyCFrame*
    uint64_t cfCurrentFrame = kAbsent; //   ... and its current_frame
    uint64_t tsCurrentFrame = kAbsent; // 3.13+
    uint64_t tsThreadId = kAbsent, tsNativeThreadId = kAbsent;
    uint64_t tsDatastackChunk = kAbsent, tsDatastackTop = kAbsent;
    uint64_t tsHoldsGil = kAbsent, tsGilRequested = kAbsent; // 3.15 ints
    uint64_t tsRecursionDepth = kAbsent; // <= 3.10, int: bounds the frame chain's length
    uint64_t tsBaseFrame = kAbsent;      // 3.15: the sentinel frame every walk must end at
    // Free-threaded only: the _status bit field, whose `active` bit (bit 4 in 3.13's
    // cpython/pystate.h) is set while the thread is attached (runs Python or the C API).
    uint64_t tsStatusBits = kAbsent;
    static constexpr uint32_t kStatusActive = 1u << 4;
    // Free-threaded only: `int state`, the thread's attachment (3.13's cpython/pystate.h:
    // after _status and _whence; no version publishes it). A stop-the-world request turns
    // every other thread SUSPENDED until the world starts again.
    uint64_t tsAttachState = kAbsent;
    static constexpr int32_t kThreadDetached = 0, kThreadAttached = 1, kThreadSuspended = 2;
    uint64_t tsCurrentException = kAbsent; // curexc_type (<= 3.11) / current_exception
    uint64_t tsExcStateValue = kAbsent;    // tstate->exc_state.exc_value (embedded item)
    // The thread's current contextvars.Context (PyObject*, NULL until one is entered or a
    // variable set), for --label-from. No version publishes it: from each version's
    // cpython/pystate.h, and checked against live interpreters (test_context_labels).
    uint64_t tsContext = kAbsent;
    // <= 3.10 (no native_thread_id): PyThreadState.id, unique in the process, which keys
    // the TID read from glibc's struct pthread (whose address a later thread reuses).
    uint64_t tsUniqueId = kAbsent;

    // How much of a PyThreadState a sample reads: up to the last field listed above
    // (all of them lie in its first few hundred bytes), not the whole struct, which
    // 3.13+ pads with the interpreter's private state. With -a on 500 threads that is
    // most of what a sample copies.
    uint64_t threadStateReadSize() const {
        uint64_t end = 0;
        for (uint64_t off : {tsNext, tsInterp, tsFrame, tsCframe, tsCurrentFrame, tsThreadId,
                             tsNativeThreadId, tsDatastackChunk, tsDatastackTop, tsHoldsGil,
                             tsGilRequested, tsRecursionDepth, tsBaseFrame, tsCurrentException,
                             tsExcStateValue, tsStatusBits, tsAttachState, tsUniqueId})
            if (off != kAbsent) end = std::max(end, off + 8);
        return std::min(end, tsSize);
    }

    // Frames: PyFrameObject (<= 3.10) or _PyInterpreterFrame (3.11+)
    bool legacyFrames = false;
    uint64_t frSize = 0, frPrevious = kAbsent, frCode = kAbsent, frInstr = kAbsent;
    uint64_t frLasti = kAbsent;     // <= 3.10, int
    uint64_t frOwner = kAbsent;     // 3.11+, char
    uint64_t frGlobals = kAbsent;   // 3.11+: f_globals, which ties a frame to its code's module
    uint64_t frRefcnt = kAbsent;    // <= 3.10: ob_refcnt (a freed frame has 0)
    uint64_t frExecuting = kAbsent; // 3.8/3.9: char f_executing, 1 while evaluated
    uint64_t frState = kAbsent;     // 3.10: signed char f_state, 0 = FRAME_EXECUTING
    uint64_t frIsEntry = kAbsent;   // 3.11: bool, first frame of an eval-loop call
    int firstSkippedOwner = 99;     // owners >= this are interpreter shims, not Python frames
    // How a walk proves it reached the thread's base (see FrameWalker::reachedBase).
    enum class Base { ExecutingRoot, ThreadEntryFrame, ShimFrame, BaseFrame };
    Base base = Base::ExecutingRoot;
    uint64_t frameTagMask = ~uint64_t{0}; // 3.14+: f_executable is a tagged _PyStackRef

    // PyCodeObject
    uint64_t coSize = 0, coFilename = kAbsent, coName = kAbsent, coQualname = kAbsent;
    uint64_t coLinetable = kAbsent, coFirstlineno = kAbsent;
    uint64_t coFlags = kAbsent;        // <= 3.10: int co_flags (CO_GENERATOR etc.)
    uint64_t coCodeAdaptive = kAbsent; // 3.11+: inline bytecode
    uint64_t coCode = kAbsent;         // <= 3.10: bytes object

    // Locals (dump --locals). Where a frame keeps its variables: 3.11+ the frame's
    // localsplus (_PyStackRef from 3.13, tagged from 3.14), named by the code's
    // co_localsplusnames tuple and kinds bytes; <= 3.10 PyFrameObject.f_localsplus,
    // named by co_varnames, then co_cellvars, then co_freevars.
    uint64_t frLocalsplus = kAbsent;
    uint64_t coLocalsplusNames = kAbsent, coLocalsplusKinds = kAbsent;         // 3.11+
    uint64_t coArgcount = kAbsent, coKwonlyArgcount = kAbsent;                 // int
    uint64_t coNlocals = kAbsent;                                              // <= 3.10, int
    uint64_t coVarnames = kAbsent, coCellvars = kAbsent, coFreevars = kAbsent; // <= 3.10

    // Objects. A free-threaded build's PyObject is 32 bytes (ob_tid, flags, ob_mutex,
    // gc bits, local and shared refcounts, then ob_type), so every field after the header
    // sits 16 bytes further on.
    uint64_t objectHeader = 16; // sizeof(PyObject)
    uint64_t obType = 8, varSize = 16;
    uint64_t bytesSize = 16, bytesData = 32;
    uint64_t tupleItems = 24; // PyTupleObject.ob_item (3.14 caches the hash before it)
    uint64_t strLength = 16, strState = 32, strAsciiSize = 0, strCompactSize = 0;
    // Dicts and instances, for threading's registry (thread names, remote_dict.h).
    uint64_t dictKeys = 32, dictValues = 40; // PyDictObject.ma_keys / ma_values
    uint64_t htCachedKeys = kAbsent;         // PyHeapTypeObject.ht_cached_keys (3.11+ instances)
    // Where a 3.11+ instance keeps its managed dict, before the object: MANAGED_DICT_OFFSET
    // (-3 words; -1 on a free-threaded build, which has no GC links in the pre-header).
    int64_t managedDict = -24;

    // How far a field of an object lies beyond where a GIL build puts it.
    uint64_t headerShift() const { return objectHeader - 16; }
};

enum class LineTableFormat { Lnotab, Linetable310, Locations311 };
LineTableFormat lineTableFormat(const PythonLayout& l);

// Built-in tables, measured on this machine's interpreters (3.8 - 3.12).
Result<PythonLayout> builtinLayout(uint32_t versionHex);

// Parses the target's _Py_DebugOffsets (3.13, 3.14, 3.15), validating cookie,
// version and every size/offset it uses.
Result<PythonLayout> layoutFromDebugOffsets(std::span<const uint8_t> table, uint32_t versionHex);

// Largest _Py_DebugOffsets we know, to size the read.
inline constexpr size_t kMaxDebugOffsetsSize = 1024;

} // namespace gilscope::remote
