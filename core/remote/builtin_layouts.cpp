#include "core/remote/gc_counts_probe.h"
#include "core/remote/python_layout.h"

#include <string>

// Offsets for 3.8-3.12 on x86_64 Linux, measured with offsetof() against each pyenv
// install's own headers and checked against live processes (shared/docs/remote-reading.md §4).
namespace gilscope::remote {

LineTableFormat lineTableFormat(const PythonLayout& l) {
    if (l.minor <= 9) return LineTableFormat::Lnotab;
    if (l.minor == 10) return LineTableFormat::Linetable310;
    return LineTableFormat::Locations311;
}

namespace {

void legacyCommon(PythonLayout& l) {
    l.legacyFrames = true;
    l.tsNext = 8;
    l.tsInterp = 16;
    l.tsFrame = 24;
    l.tsThreadId = 176;
    l.tsCurrentException = 88; // curexc_type
    l.tsExcStateValue = 112 + 8;
    l.tsRecursionDepth = 32;
    l.frSize = 120; // up to f_executing (3.8/3.9) / f_state (3.10)
    l.frRefcnt = 0;
    l.frPrevious = 24;
    l.frCode = 32;
    l.base = PythonLayout::Base::ExecutingRoot;
    l.coSize = 176;
    l.coFlags = 36;
    l.coFirstlineno = 40;
    l.coCode = 48;
    l.coArgcount = 16;
    l.coKwonlyArgcount = 24;
    l.coNlocals = 28;
    l.coVarnames = 72;
    l.coFreevars = 80;
    l.coCellvars = 88;
    l.coFilename = 104;
    l.coName = 112;
    l.coLinetable = 120;
    l.strAsciiSize = 48;
    l.strCompactSize = 72;
    l.rtInterpretersHead = 32;
    l.rtMainThread = 72;
    l.inNext = 0;
    l.inThreadsHead = 8;
}

void table38(PythonLayout& l) {
    legacyCommon(l);
    l.tsSize = 264;
    l.frLasti = 104;
    l.frExecuting = 116;
    l.frLocalsplus = 360;
    l.rtGilHolder = 1160;
    l.rtGilLocked = 1168;
    l.rtGcCollecting = 544;
    l.inId = 16;
    l.inModules = 56;
}

void table39or310(PythonLayout& l) {
    legacyCommon(l);
    l.tsSize = l.minor == 9 ? 264 : 280;
    l.frLasti = l.minor == 9 ? 104 : 96;
    l.frLocalsplus = l.minor == 9 ? 360 : 352; // after the 20 PyTryBlocks of f_blockstack
    if (l.minor == 9)
        l.frExecuting = 116;
    else
        l.frState = 108;
    l.rtGilHolder = 360;
    l.rtGilLocked = 368;
    l.inId = 24;
    l.inGcCollecting = 816;
    l.inModules = 856;
}

void modernCommon(PythonLayout& l) {
    l.tsNext = 8;
    l.tsInterp = 16;
    l.tsCframe = 56;
    l.frSize = 80;
    l.coFilename = 112;
    l.coName = 120;
    l.coQualname = 128;
    l.coLinetable = 136;
    l.rtInterpretersHead = 40;
    l.inNext = 0;
    l.firstSkippedOwner = 3; // 3.12: FRAME_OWNED_BY_CSTACK (3.11 has none, harmless)
    l.base = PythonLayout::Base::ShimFrame;
}

void table311(PythonLayout& l) {
    modernCommon(l);
    l.rtMainThread = 80;
    l.rtGilHolder = 368;
    l.rtGilLocked = 376;
    l.inThreadsHead = 16;
    l.inId = 48;
    l.inGcCollecting = 848;
    l.inModules = 888;
    l.htCachedKeys = 872;
    l.tsSize = 360;
    l.cfCurrentFrame = 8;
    l.tsThreadId = 152;
    l.tsNativeThreadId = 160;
    l.tsCurrentException = 96; // curexc_type
    l.tsExcStateValue = 320;
    l.tsDatastackChunk = 296;
    l.tsDatastackTop = 304;
    l.frCode = 32;
    l.frPrevious = 48;
    l.frGlobals = 8; // after f_func
    l.frInstr = 56;
    l.frOwner = 69;
    l.frIsEntry = 68;
    l.frLocalsplus = 72;
    l.coLocalsplusNames = 96;
    l.coLocalsplusKinds = 104;
    l.coArgcount = 56;
    l.coKwonlyArgcount = 64;
    l.base = PythonLayout::Base::ThreadEntryFrame; // no shim frames yet
    l.coSize = 192;
    l.coFirstlineno = 72;
    l.coCodeAdaptive = 184;
    l.strAsciiSize = 48;
    l.strCompactSize = 72;
}

void table312(PythonLayout& l) {
    modernCommon(l);
    l.rtMainThread = 64;
    l.inThreadsHead = 72;
    l.inId = 8;
    l.inGcCollecting = 312;
    l.inModules = 944;
    l.htCachedKeys = 880;
    l.inGilPointer = 384;
    l.inOwnGil = 1040;
    l.inGilHolder = 1040 + PythonLayout::kGilHolderInStruct;
    l.inGilLocked = 1040 + PythonLayout::kGilLockedInStruct;
    l.tsSize = 288;
    l.cfCurrentFrame = 0;
    l.tsThreadId = 136;
    l.tsNativeThreadId = 144;
    l.tsCurrentException = 96;
    l.tsExcStateValue = 256;
    l.tsDatastackChunk = 232;
    l.tsDatastackTop = 240;
    l.frCode = 0;
    l.frPrevious = 8;
    l.frGlobals = 24; // after f_funcobj
    l.frInstr = 56;
    l.frOwner = 70;
    l.frLocalsplus = 72;
    l.coLocalsplusNames = 96;
    l.coLocalsplusKinds = 104;
    l.coArgcount = 52;
    l.coKwonlyArgcount = 60;
    l.coSize = 200;
    l.coFirstlineno = 68;
    l.coCodeAdaptive = 192;
    l.strAsciiSize = 40;
    l.strCompactSize = 56;
}

} // namespace

Result<PythonLayout> builtinLayout(uint32_t versionHex) {
    PythonLayout l;
    l.versionHex = versionHex;
    l.major = static_cast<uint8_t>(versionHex >> 24);
    l.minor = static_cast<uint8_t>(versionHex >> 16);
    l.micro = static_cast<uint8_t>(versionHex >> 8);
    if (l.major != 3 || l.minor < 8 || l.minor > 12)
        return makeError(ErrorKind::UnsupportedVersion,
                         "Python " + PythonVersion::fromHex(versionHex).str() +
                             " is not supported: gilscope reads CPython 3.8 to 3.15");
    switch (l.minor) {
    case 8:
        table38(l);
        break;
    case 9:
    case 10:
        table39or310(l);
        break;
    case 11:
        table311(l);
        break;
    case 12:
        table312(l);
        break;
    }
    locateInlineGcStats(l); // generation_stats[3], right before gc.collecting
    // offsetof(PyThreadState, context), compiled against each version's headers.
    l.tsContext = l.minor <= 10 ? 240 : l.minor == 11 ? 224 : 208;
    if (l.minor <= 10) l.tsUniqueId = 256; // uint64_t id, after context and context_ver
    return l;
}

} // namespace gilscope::remote
