// Every field the remote readers use, each with the structure it indexes: checks a
// PythonLayout independently of the parser that made it (fuzz_debug_offsets and
// test_remote_units). The readers copy each structure and read its fields through
// StructView, so a field outside its copy reads as absent; a layout that puts one there
// must be refused up front instead, with a reason, not read as zeros.
#pragma once

#include "core/remote/python_layout.h"

#include <cstdint>

namespace gilscope::test {

// The first field outside its structure, or nullptr when all fit.
inline const char* fieldOutsideItsStruct(const remote::PythonLayout& l) {
    using remote::kAbsent;
    constexpr uint64_t kMaxInterp = 64u << 20; // the interpreter is read through a window
    constexpr uint64_t kObjectHeader = 512;    // RemoteObjects' first read of a str/bytes
    auto in = [](uint64_t off, uint64_t width, uint64_t size) {
        return off != kAbsent && off <= size && width <= size - off;
    };
    auto opt = [&](uint64_t off, uint64_t width, uint64_t size) {
        return off == kAbsent || in(off, width, size);
    };
    const struct {
        const char* name;
        bool ok;
    } fields[] = {
        {"thread state size", l.tsSize > 0 && l.tsSize <= 4096},
        {"tstate.next", in(l.tsNext, 8, l.tsSize)},
        {"tstate.interp", in(l.tsInterp, 8, l.tsSize)},
        {"tstate.current_frame", opt(l.tsCurrentFrame, 8, l.tsSize)},
        {"tstate.frame", opt(l.tsFrame, 8, l.tsSize)},
        {"tstate.cframe", opt(l.tsCframe, 8, l.tsSize)},
        {"tstate.thread_id", in(l.tsThreadId, 8, l.tsSize)},
        {"tstate.native_thread_id", opt(l.tsNativeThreadId, 8, l.tsSize)},
        {"tstate.datastack_chunk", opt(l.tsDatastackChunk, 8, l.tsSize)},
        {"tstate.datastack_top", opt(l.tsDatastackTop, 8, l.tsSize)},
        {"tstate.holds_gil", opt(l.tsHoldsGil, 4, l.tsSize)},
        {"tstate.gil_requested", opt(l.tsGilRequested, 4, l.tsSize)},
        {"tstate.recursion_depth", opt(l.tsRecursionDepth, 4, l.tsSize)},
        {"tstate.base_frame", opt(l.tsBaseFrame, 8, l.tsSize)},
        {"tstate._status", opt(l.tsStatusBits, 4, l.tsSize)},
        {"tstate.current_exception", opt(l.tsCurrentException, 8, l.tsSize)},
        {"tstate.exc_state.exc_value", opt(l.tsExcStateValue, 8, l.tsSize)},
        {"frame size", l.frSize > 0 && l.frSize <= 1024},
        {"frame.previous", in(l.frPrevious, 8, l.frSize)},
        {"frame.executable", in(l.frCode, 8, l.frSize)},
        {"frame.instr_ptr", opt(l.frInstr, 8, l.frSize)},
        {"frame.owner", opt(l.frOwner, 1, l.frSize)},
        {"frame.globals", opt(l.frGlobals, 8, l.frSize)},
        {"frame.is_entry", opt(l.frIsEntry, 1, l.frSize)},
        {"frame.lasti", opt(l.frLasti, 4, l.frSize)},
        // localsplus starts where a 3.11+ frame ends (<= 3.10's frSize is what a walk reads).
        {"frame.localsplus", l.legacyFrames || opt(l.frLocalsplus, 0, l.frSize)},
        {"code.co_argcount", opt(l.coArgcount, 4, l.coSize)},
        {"code.co_kwonlyargcount", opt(l.coKwonlyArgcount, 4, l.coSize)},
        {"code.co_localsplusnames", opt(l.coLocalsplusNames, 8, l.coSize)},
        {"code.co_localspluskinds", opt(l.coLocalsplusKinds, 8, l.coSize)},
        {"code size", l.coSize > 0 && l.coSize <= 1024},
        {"code.ob_type", in(l.obType, 8, l.coSize)},
        {"code.ob_size", in(l.varSize, 8, l.coSize)},
        {"code.co_filename", in(l.coFilename, 8, l.coSize)},
        {"code.co_name", in(l.coName, 8, l.coSize)},
        {"code.co_qualname", opt(l.coQualname, 8, l.coSize)},
        {"code.co_linetable", in(l.coLinetable, 8, l.coSize)},
        {"code.co_firstlineno", in(l.coFirstlineno, 4, l.coSize)},
        {"code.co_code_adaptive", opt(l.coCodeAdaptive, 0, l.coSize)},
        {"str.length", in(l.strLength, 8, kObjectHeader)},
        {"str.state", in(l.strState, 4, kObjectHeader)},
        {"str ascii data", in(l.strAsciiSize, 0, kObjectHeader)},
        {"str compact data", in(l.strCompactSize, 0, kObjectHeader)},
        {"bytes.ob_size", in(l.bytesSize, 8, kObjectHeader)},
        {"bytes data", in(l.bytesData, 0, kObjectHeader)},
        {"interp.next", in(l.inNext, 8, kMaxInterp)},
        {"interp.id", in(l.inId, 8, kMaxInterp)},
        {"interp.threads_head", in(l.inThreadsHead, 8, kMaxInterp)},
        {"interp.threads_main", opt(l.inThreadsMain, 8, kMaxInterp)},
        {"interp.gc.collecting", opt(l.inGcCollecting, 4, kMaxInterp)},
        // The GC's counts are read in their own copy, never beyond it; where they are
        // located, inside the interpreter.
        {"interp.gc.generation_stats",
         !l.gcStats.valid() ||
             opt(l.inGcStats, l.gcStats.behindPointer ? 8 : l.gcStats.size, kMaxInterp)},
        {"runtime.gc.generation_stats",
         !l.gcStats.valid() || opt(l.rtGcStats, l.gcStats.size, kMaxInterp)},
        {"interp.gil holder", opt(l.inGilHolder, 8, kMaxInterp)},
        {"interp.gil locked", opt(l.inGilLocked, 4, kMaxInterp)},
        {"interp.code generation", opt(l.inCodeGeneration, 8, kMaxInterp)},
        {"runtime.interpreters_head", in(l.rtInterpretersHead, 8, kMaxInterp)},
    };
    for (const auto& f : fields)
        if (!f.ok) return f.name;
    return nullptr;
}

} // namespace gilscope::test
