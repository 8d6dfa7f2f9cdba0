#include "core/remote/debug_offsets_tables.h"
#include "core/remote/gc_counts_probe.h"
#include "core/remote/python_layout.h"
#include "core/remote/struct_view.h"

#include <cstring>
#include <string>

// Reads CPython's _Py_DebugOffsets (the table at the start of _PyRuntime, 3.13+): the
// positions per minor are in debug_offsets_tables.h; the values themselves come from the
// target, never from us.
namespace gilscope::remote {

namespace {

using namespace debug_tables;

class TableReader {
public:
    explicit TableReader(std::span<const uint8_t> t) : t_(t) {}
    uint64_t at(size_t pos) const { return pos == N ? 0 : t_.field<uint64_t>(pos); }
    uint64_t opt(size_t pos) const { return pos == N ? kAbsent : at(pos); }

private:
    StructView t_;
};

Error badTable(const std::string& version, const std::string& what) {
    return makeError(ErrorKind::UnsupportedVersion,
                     "the _Py_DebugOffsets table of this Python " + version +
                         " does not look like the layout gilscope knows (" + what +
                         "); this build is not supported");
}

// offsetof(PyThreadState, context), which _Py_DebugOffsets does not publish, from the
// fields that follow native_thread_id in cpython/pystate.h, the same in 3.13, 3.14.10 and
// 3.15.2 (compiled against Debian's headers: 208, 208, 232) and in the free-threaded
// build: delete_later, critical_section, coroutine_origin_tracking_depth (an int, padded),
// async_gen_firstiter, async_gen_finalizer, then context.
uint64_t contextOffset(uint8_t minor, uint64_t nativeThreadId) {
    return minor >= 13 && minor <= 15 ? nativeThreadId + 48 : kAbsent;
}

} // namespace

Result<PythonLayout> layoutFromDebugOffsets(std::span<const uint8_t> table, uint32_t versionHex) {
    const std::string ver = PythonVersion::fromHex(versionHex).str();
    if (table.size() < 24 || std::memcmp(table.data(), "xdebugpy", 8) != 0)
        return badTable(ver, "the 'xdebugpy' cookie is missing");
    TableReader r(table);
    const uint64_t tableVersion = r.at(8);
    if ((tableVersion >> 16) != (versionHex >> 16))
        return badTable(ver, "its version " +
                                 PythonVersion::fromHex(static_cast<uint32_t>(tableVersion)).str() +
                                 " disagrees with Py_Version");
    const uint8_t minor = static_cast<uint8_t>(tableVersion >> 16);
    const TablePositions* p = minor == 13   ? &k313
                              : minor == 14 ? &k314
                              : minor == 15 ? &k315
                                            : nullptr;
    if (!p)
        return makeError(ErrorKind::UnsupportedVersion,
                         "Python " + ver + " is not supported: gilscope reads CPython 3.8 to 3.15");
    if (minor >= 14 && ((tableVersion >> 4) & 0xf) != 0xf)
        return makeError(ErrorKind::UnsupportedVersion,
                         "Python " +
                             PythonVersion::fromHex(static_cast<uint32_t>(tableVersion)).str() +
                             " is a pre-release whose debug-offset layout changed between "
                             "builds; use a final release");
    if (table.size() < p->totalSize) return badTable(ver, "the table is truncated");
    // free_threaded (3.13t+): no GIL, and a 32-byte object header.
    const bool freeThreaded = r.at(0x10) != 0;
    if (freeThreaded && minor >= 14)
        return makeError(ErrorKind::UnsupportedVersion,
                         "this Python " + ver +
                             " is a free-threaded build (python3.Xt); gilscope reads free-threaded "
                             "3.13t, but not yet 3.14t or later, whose frames and per-thread "
                             "bytecode it has not been checked against. Run the program with the "
                             "regular interpreter");

    PythonLayout l;
    l.freeThreaded = freeThreaded;
    l.versionHex = static_cast<uint32_t>(tableVersion);
    l.major = 3;
    l.minor = minor;
    l.micro = static_cast<uint8_t>(tableVersion >> 8);

    l.rtInterpretersHead = r.at(p->rtInterpretersHead);
    l.inId = r.at(p->inId);
    l.inNext = r.at(p->inNext);
    l.inThreadsHead = r.at(p->inThreadsHead);
    // 3.13's table has no threads_main; it sits right after threads.head (measured).
    l.inThreadsMain = p->inThreadsMain != N ? r.at(p->inThreadsMain) : l.inThreadsHead + 8;
    l.inGcCollecting = r.at(p->inGc) + r.at(p->gcCollecting);
    // A free-threaded build keeps the GIL struct (enabled only by PYTHON_GIL=1), but no
    // thread ever holds it: there is nothing to read.
    if (!freeThreaded) {
        l.inGilHolder = r.at(p->inGilHolder);
        l.inGilLocked = r.at(p->inGilLocked);
    }
    l.inCodeGeneration = r.opt(p->inCodeGeneration);
    l.inModules = r.at(p->inModules);
    l.dictKeys = r.at(p->dictKeys);
    l.dictValues = r.at(p->dictValues);
    // 3.13/3.14 publish no heap-type table: ht_cached_keys measured on 3.13.0 and 3.14, and
    // compiled from 3.13.15's free-threaded headers (896: the type's object header is 16
    // bytes longer; MANAGED_DICT_OFFSET is -8 there, and str's state bits are unchanged).
    l.objectHeader = r.at(p->obSize);
    l.htCachedKeys = p->htCachedKeys != N ? r.at(p->htCachedKeys) : 880 + (freeThreaded ? 16 : 0);
    if (freeThreaded) {
        l.managedDict = -8;
        l.tsStatusBits = r.at(p->tsStatus);
        // `int _whence; int state;` follow the 4-byte _status (compiled from 3.13.15's
        // free-threaded headers: 32 / 40; test_free_threaded reads it live).
        l.tsAttachState = l.tsStatusBits + 8;
    }

    l.tsSize = r.at(p->tsSize);
    l.tsNext = r.at(p->tsNext);
    l.tsInterp = r.at(p->tsInterp);
    l.tsCurrentFrame = r.at(p->tsCurrentFrame);
    l.tsBaseFrame = r.opt(p->tsBaseFrame);
    l.tsThreadId = r.at(p->tsThreadId);
    l.tsNativeThreadId = r.at(p->tsNativeThreadId);
    l.tsContext = contextOffset(minor, l.tsNativeThreadId);
    l.tsDatastackChunk = r.at(p->tsDatastackChunk);
    l.tsDatastackTop = l.tsDatastackChunk + 8; // datastack_top follows datastack_chunk
    l.tsHoldsGil = r.opt(p->tsHoldsGil);
    l.tsGilRequested = r.opt(p->tsGilRequested);
    if (p->tsCurrentException != N) {
        l.tsCurrentException = r.at(p->tsCurrentException);
        l.tsExcStateValue = r.at(p->tsExcState) + r.at(p->excValue);
    } else {
        // Before 3.15: current_exception follows the four c_trace/c_profile slots after
        // current_frame, and exc_state follows datastack_{chunk,top,limit}.
        l.tsCurrentException = l.tsCurrentFrame + 40;
        l.tsExcStateValue = l.tsDatastackChunk + 24;
    }

    l.frSize = r.at(p->frSize);
    l.frPrevious = r.at(p->frPrevious);
    l.frCode = r.at(p->frExecutable);
    l.frInstr = r.at(p->frInstr);
    l.frOwner = r.at(p->frOwner);
    l.frLocalsplus = r.at(p->frLocalsplus);
    // _Py_DebugOffsets has no f_globals; 3.13-3.15 frames start f_executable, previous,
    // f_funcobj, f_globals. Only where the published offsets agree with that order.
    if (l.frCode == 0 && l.frPrevious == 8) l.frGlobals = 24;
    // 3.13: CSTACK shim = 3. 3.14+: INTERPRETER = 3 (and CSTACK = 4 in 3.14).
    l.firstSkippedOwner = 3;
    // 3.14+ tag f_executable as a _PyStackRef; 3.13 (3.13t too: checked in 3.13.15's
    // pycore_frame.h) keeps a plain PyObject*.
    if (minor >= 14) l.frameTagMask = ~uint64_t{7};
    // Every eval-loop call starts with a shim frame of owner 3 (CSTACK on 3.13, INTERPRETER
    // on 3.14), so the thread's chain ends at one; 3.15 ends it at tstate->base_frame.
    l.base =
        l.tsBaseFrame != kAbsent ? PythonLayout::Base::BaseFrame : PythonLayout::Base::ShimFrame;

    l.coSize = r.at(p->coSize);
    l.coFilename = r.at(p->coFilename);
    l.coName = r.at(p->coName);
    l.coQualname = r.at(p->coQualname);
    l.coLinetable = r.at(p->coLinetable);
    l.coFirstlineno = r.at(p->coFirstlineno);
    l.coCodeAdaptive = r.at(p->coAdaptive);
    l.coArgcount = r.at(p->coArgcount);
    // Not published: co_kwonlyargcount follows co_argcount and co_posonlyargcount, as in
    // 3.12's _PyCode_DEF (measured 3.12, 3.13 and 3.13t).
    l.coKwonlyArgcount = l.coArgcount + 8;
    l.coLocalsplusNames = r.at(p->coLocalsplusNames);
    l.coLocalsplusKinds = r.at(p->coLocalsplusKinds);

    l.obType = r.at(p->obType);
    l.bytesSize = r.at(p->bytesObSize);
    l.bytesData = r.at(p->bytesSval);
    l.strLength = r.at(p->strLength);
    l.strState = r.at(p->strState);
    l.strAsciiSize = r.at(p->strAsciiSize);
    l.strCompactSize = p->strCompactSize != N ? r.at(p->strCompactSize) : l.strAsciiSize + 16;

    // Sanity anchors: the object header is 16 bytes (32 on a free-threaded build) with
    // ob_type in its last word, ob_size right after it, bytes data 16 bytes further on, tuple
    // items 8 further (16 from 3.14, which caches the tuple hash before them). A wrong
    // layout guess fails these before any walk.
    const uint64_t header = freeThreaded ? 32 : 16;
    const uint64_t tupleItem = header + (minor >= 14 ? 16 : 8);
    if (l.objectHeader != header || l.obType != header - 8 || r.at(p->tupleItem) != tupleItem ||
        l.bytesData != header + 16 || l.bytesSize != header)
        return badTable(ver, freeThreaded ? "object header offsets are not the free-threaded values"
                                          : "object header offsets are not the GIL-build values");
    l.tupleItems = tupleItem;
    l.varSize = l.bytesSize; // PyVarObject.ob_size, the same in every variable-size object
    // Each check is named, so a rejected table says which offset did not fit.
    auto within = [](uint64_t off, uint64_t size, uint64_t width) {
        return size > 0 && fits(off, width, size);
    };
    auto withinIfPresent = [&](uint64_t off, uint64_t size, uint64_t width) {
        return off == kAbsent || within(off, size, width);
    };
    const uint64_t interpSize = r.at(p->inSize);
    const uint64_t frameSize = l.frSize, codeSize = l.coSize, strSize = r.at(p->strSize);
    const struct {
        const char* name;
        bool ok;
    } checks[] = {
        {"runtime size", r.at(p->rtSize) < (64u << 20)},
        {"runtime.interpreters_head", within(l.rtInterpretersHead, r.at(p->rtSize), 8)},
        {"interpreter size", interpSize < (64u << 20)},
        {"interpreter.next", within(l.inNext, interpSize, 8)},
        {"interpreter.threads_head", within(l.inThreadsHead, interpSize, 8)},
        {"interpreter.threads_main", within(l.inThreadsMain, interpSize, 8)},
        {"interpreter.gc.collecting", within(l.inGcCollecting, interpSize, 4)},
        {"interpreter.gil holder", withinIfPresent(l.inGilHolder, interpSize, 8)},
        {"interpreter.gil locked", withinIfPresent(l.inGilLocked, interpSize, 4)},
        {"interpreter.id", within(l.inId, interpSize, 8)},
        {"interpreter.imports.modules", within(l.inModules, interpSize, 8)},
        {"dict.ma_keys", l.dictKeys >= 16 && l.dictKeys <= 64},
        {"dict.ma_values", l.dictValues >= 16 && l.dictValues <= 64},
        {"heap type.ht_cached_keys", l.htCachedKeys >= 416 && l.htCachedKeys <= 2048},
        {"interpreter.code_object_generation", withinIfPresent(l.inCodeGeneration, interpSize, 8)},
        {"thread state size", l.tsSize <= 4096},
        {"thread_state.next", within(l.tsNext, l.tsSize, 8)},
        {"thread_state.interp", within(l.tsInterp, l.tsSize, 8)},
        {"thread_state.thread_id", within(l.tsThreadId, l.tsSize, 8)},
        {"thread_state.datastack_chunk", within(l.tsDatastackChunk, l.tsSize, 8)},
        {"thread_state.current_frame", within(l.tsCurrentFrame, l.tsSize, 8)},
        {"thread_state.native_thread_id", within(l.tsNativeThreadId, l.tsSize, 8)},
        {"thread_state.datastack_top", within(l.tsDatastackTop, l.tsSize, 8)},
        {"thread_state.exc_state value", within(l.tsExcStateValue, l.tsSize, 8)},
        {"thread_state.current_exception", within(l.tsCurrentException, l.tsSize, 8)},
        {"thread_state.holds_gil", withinIfPresent(l.tsHoldsGil, l.tsSize, 4)},
        {"thread_state.gil_requested", withinIfPresent(l.tsGilRequested, l.tsSize, 4)},
        {"thread_state.base_frame", withinIfPresent(l.tsBaseFrame, l.tsSize, 8)},
        {"thread_state._status", withinIfPresent(l.tsStatusBits, l.tsSize, 4)},
        {"thread_state.state", withinIfPresent(l.tsAttachState, l.tsSize, 4)},
        {"frame size", frameSize <= 256},
        {"frame.previous", within(l.frPrevious, frameSize, 8)},
        {"frame.executable", within(l.frCode, frameSize, 8)},
        {"frame.instr_ptr", within(l.frInstr, frameSize, 8)},
        {"frame.owner", within(l.frOwner, frameSize, 1)},
        {"frame.globals", withinIfPresent(l.frGlobals, frameSize, 8)},
        // localsplus is the frame's last member, a flexible array: it starts at its end.
        {"frame.localsplus", l.frLocalsplus >= 16 && l.frLocalsplus <= frameSize},
        {"code object size", codeSize <= 1024},
        {"code object header", within(l.varSize, codeSize, 8)},
        {"code.co_filename", within(l.coFilename, codeSize, 8)},
        {"code.co_name", within(l.coName, codeSize, 8)},
        {"code.co_qualname", within(l.coQualname, codeSize, 8)},
        {"code.co_linetable", within(l.coLinetable, codeSize, 8)},
        {"code.co_firstlineno", within(l.coFirstlineno, codeSize, 4)},
        // co_flags is read 4 bytes before co_argcount, co_kwonlyargcount 8 after it.
        {"code.co_argcount", within(l.coArgcount, codeSize, 4) &&
                                 within(l.coKwonlyArgcount, codeSize, 4) && l.coArgcount >= 8},
        {"code.co_localsplusnames", within(l.coLocalsplusNames, codeSize, 8)},
        {"code.co_localspluskinds", within(l.coLocalsplusKinds, codeSize, 8)},
        {"code.co_code_adaptive",
         codeSize >= 8 && l.coCodeAdaptive >= codeSize - 8 && l.coCodeAdaptive <= codeSize},
        // A str's header is read in one 512-byte copy (RemoteObjects).
        {"str size", strSize <= 512},
        {"str.state", within(l.strState, strSize, 4)},
        {"str.length", within(l.strLength, strSize, 8)},
        {"str ascii size", l.strAsciiSize >= 32 && l.strAsciiSize <= 64},
        {"str compact size",
         l.strCompactSize >= l.strAsciiSize && l.strCompactSize <= l.strAsciiSize + 32},
    };
    for (const auto& check : checks)
        if (!check.ok)
            return badTable(ver, std::string(check.name) + " lies outside its structure");
    // The GC's own counts: where they lie outside the gc state, they are not read (the
    // stacks do not need them).
    const uint64_t gcState = r.at(p->inGc), gcSize = r.at(p->gcSize);
    if (within(gcState, interpSize, gcSize))
        locateGcStatsFromDebugOffsets(l, gcState, r.at(p->gcCollecting), r.at(p->gcStats),
                                      r.at(p->gcStatsSize));
    if (l.inGcStats != kAbsent &&
        !within(l.inGcStats - gcState, gcSize, l.gcStats.behindPointer ? 8 : l.gcStats.size))
        l.gcStats = {};
    return l;
}

} // namespace gilscope::remote
