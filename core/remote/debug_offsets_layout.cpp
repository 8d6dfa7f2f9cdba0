#include "core/remote/python_layout.h"

#include <cstring>
#include <string>

// Reads CPython's _Py_DebugOffsets (the table at the start of _PyRuntime, 3.13+).
// The table grows in the middle between minors, so each minor has its own list of
// field positions; the values themselves come from the target, never from us.
namespace gilscope::remote {

namespace {

// Byte positions, inside _Py_DebugOffsets, of the fields we use.
struct TablePositions {
    size_t totalSize;
    size_t rtSize, rtInterpretersHead;
    size_t inSize, inId, inNext, inThreadsHead, inThreadsMain, inGc, inGilState, inGilLocked,
        inGilHolder, inCodeGeneration;
    size_t tsSize, tsNext, tsInterp, tsCurrentFrame, tsBaseFrame, tsThreadId, tsNativeThreadId,
        tsDatastackChunk, tsStatus, tsHoldsGil, tsGilRequested, tsCurrentException, tsExcState;
    size_t excValue;
    size_t frSize, frPrevious, frExecutable, frInstr, frOwner;
    size_t coSize, coFilename, coName, coQualname, coLinetable, coFirstlineno, coAdaptive;
    size_t obSize, obType;
    size_t tupleItem;
    size_t bytesSize, bytesObSize, bytesSval;
    size_t strSize, strState, strLength, strAsciiSize, strCompactSize;
    size_t gcSize, gcCollecting;
};

constexpr size_t N = 0; // field absent in this minor

// 3.13: Include/internal/pycore_runtime.h, 584 bytes.
constexpr TablePositions k313{
    584,   0x18,  0x28,  0x30,  0x38,  0x40,  0x48,  N,     0x50,  0x78,  0x88,  0x90,  N,
    0x98,  0xa8,  0xb0,  0xb8,  N,     0xc0,  0xc8,  0xd0,  0xd8,  N,     N,     N,     N,
    N,     0xe0,  0xe8,  0xf0,  0xf8,  0x108, 0x110, 0x118, 0x120, 0x128, 0x130, 0x138, 0x158,
    0x160, 0x168, 0x198, 0x200, 0x208, 0x210, 0x218, 0x220, 0x228, 0x230, N,     0x238, 0x240};
// 3.14: Include/internal/pycore_debug_offsets.h, 760 bytes.
constexpr TablePositions k314{
    760,   0x18,  0x28,  0x30,  0x38,  0x40,  0x48,  0x50,  0x58,  0x80,  0x90,  0x98,  0xa0,
    0xb0,  0xc0,  0xc8,  0xd0,  N,     0xd8,  0xe0,  0xe8,  0xf0,  N,     N,     N,     N,
    N,     0xf8,  0x100, 0x108, 0x110, 0x120, 0x138, 0x140, 0x148, 0x150, 0x158, 0x160, 0x180,
    0x190, 0x198, 0x1c8, 0x250, 0x258, 0x260, 0x268, 0x270, 0x278, 0x280, N,     0x288, 0x290};
// 3.15: 888 bytes; adds base/last-profiled frames, holds_gil, gil_requested, exceptions.
constexpr TablePositions k315{
    888,   0x18,  0x28,  0x30,  0x38,  0x40,  0x48,  0x50,  0x58,  0x80,  0x90,  0x98,  0xa0,
    0xb0,  0xc0,  0xc8,  0xd0,  0xd8,  0xf0,  0xf8,  0x100, 0x108, 0x110, 0x118, 0x120, 0x128,
    0x130, 0x138, 0x140, 0x148, 0x150, 0x160, 0x178, 0x180, 0x188, 0x190, 0x198, 0x1a0, 0x1c0,
    0x1d0, 0x1d8, 0x228, 0x2b0, 0x2b8, 0x2c0, 0x2c8, 0x2d0, 0x2d8, 0x2e0, 0x2e8, 0x2f0, 0x2f8};

class TableReader {
public:
    explicit TableReader(std::span<const uint8_t> t) : t_(t) {}
    uint64_t at(size_t pos) const {
        uint64_t v = 0;
        if (pos != N && pos + 8 <= t_.size()) std::memcpy(&v, t_.data() + pos, 8);
        return v;
    }
    uint64_t opt(size_t pos) const { return pos == N ? kAbsent : at(pos); }

private:
    std::span<const uint8_t> t_;
};

Error badTable(const std::string& version, const std::string& what) {
    return makeError(ErrorKind::UnsupportedVersion,
                     "the _Py_DebugOffsets table of this Python " + version +
                         " does not look like the layout gilscope knows (" + what +
                         "); this build is not supported");
}

} // namespace

Result<PythonLayout> layoutFromDebugOffsets(std::span<const uint8_t> table, uint32_t versionHex) {
    const std::string ver = versionString(versionHex);
    if (table.size() < 24 || std::memcmp(table.data(), "xdebugpy", 8) != 0)
        return badTable(ver, "the 'xdebugpy' cookie is missing");
    TableReader r(table);
    const uint64_t tableVersion = r.at(8);
    if ((tableVersion >> 16) != (versionHex >> 16))
        return badTable(ver, "its version " + versionString(static_cast<uint32_t>(tableVersion)) +
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
                         "Python " + versionString(static_cast<uint32_t>(tableVersion)) +
                             " is a pre-release whose debug-offset layout changed between "
                             "builds; use a final release");
    if (table.size() < p->totalSize) return badTable(ver, "the table is truncated");
    if (r.at(0x10) != 0)
        return makeError(ErrorKind::UnsupportedVersion,
                         "this Python " + ver +
                             " is a free-threaded build (python3.Xt); gilscope reads only the "
                             "default (GIL) build. Run the program with the regular interpreter");

    PythonLayout l;
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
    l.inGilHolder = r.at(p->inGilHolder);
    l.inGilLocked = r.at(p->inGilLocked);
    l.inCodeGeneration = r.opt(p->inCodeGeneration);

    l.tsSize = r.at(p->tsSize);
    l.tsNext = r.at(p->tsNext);
    l.tsInterp = r.at(p->tsInterp);
    l.tsCurrentFrame = r.at(p->tsCurrentFrame);
    l.tsBaseFrame = r.opt(p->tsBaseFrame);
    l.tsThreadId = r.at(p->tsThreadId);
    l.tsNativeThreadId = r.at(p->tsNativeThreadId);
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
    // 3.13: CSTACK shim = 3. 3.14+: INTERPRETER = 3 (and CSTACK = 4 in 3.14).
    l.firstSkippedOwner = 3;
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

    l.obType = r.at(p->obType);
    l.bytesSize = r.at(p->bytesObSize);
    l.bytesData = r.at(p->bytesSval);
    l.strLength = r.at(p->strLength);
    l.strState = r.at(p->strState);
    l.strAsciiSize = r.at(p->strAsciiSize);
    l.strCompactSize = p->strCompactSize != N ? r.at(p->strCompactSize) : l.strAsciiSize + 16;

    // Sanity anchors: a GIL build's object header is 16 bytes with ob_type at 8, bytes data
    // at 32, tuple items at 24 (32 from 3.14, which caches the tuple hash before them).
    // A wrong layout guess fails these before any walk.
    const uint64_t obSize = r.at(p->obSize);
    const uint64_t tupleItem = minor >= 14 ? 32 : 24;
    if (obSize != 16 || l.obType != 8 || r.at(p->tupleItem) != tupleItem || l.bytesData != 32 ||
        l.bytesSize != 16)
        return badTable(ver, "object header offsets are not the GIL-build values");
    auto within = [](uint64_t off, uint64_t size, uint64_t width) {
        return off != kAbsent && size > 0 && off + width <= size;
    };
    const uint64_t interpSize = r.at(p->inSize);
    const uint64_t frameSize = l.frSize, codeSize = l.coSize, strSize = r.at(p->strSize);
    bool ok = r.at(p->rtSize) > l.rtInterpretersHead + 8 && interpSize < (64u << 20) &&
              within(l.inThreadsHead, interpSize, 8) && within(l.inThreadsMain, interpSize, 8) &&
              within(l.inGcCollecting, interpSize, 4) && within(l.inGilHolder, interpSize, 8) &&
              within(l.inGilLocked, interpSize, 4) && within(l.inId, interpSize, 8) &&
              l.tsSize <= 4096 && within(l.tsNext, l.tsSize, 8) &&
              within(l.tsCurrentFrame, l.tsSize, 8) && within(l.tsNativeThreadId, l.tsSize, 8) &&
              within(l.tsDatastackTop, l.tsSize, 8) && within(l.tsExcStateValue, l.tsSize, 8) &&
              within(l.tsCurrentException, l.tsSize, 8) && frameSize <= 256 &&
              within(l.frPrevious, frameSize, 8) && within(l.frCode, frameSize, 8) &&
              within(l.frInstr, frameSize, 8) && within(l.frOwner, frameSize, 1) &&
              codeSize <= 1024 && within(l.coFilename, codeSize, 8) &&
              within(l.coQualname, codeSize, 8) && within(l.coLinetable, codeSize, 8) &&
              within(l.coFirstlineno, codeSize, 4) && l.coCodeAdaptive >= codeSize - 8 &&
              l.coCodeAdaptive <= codeSize && within(l.strState, strSize, 4) &&
              within(l.strLength, strSize, 8) && l.strAsciiSize >= 32 && l.strAsciiSize <= 64;
    if (l.tsHoldsGil != kAbsent) ok = ok && within(l.tsHoldsGil, l.tsSize, 4);
    if (l.tsBaseFrame != kAbsent) ok = ok && within(l.tsBaseFrame, l.tsSize, 8);
    if (l.tsGilRequested != kAbsent) ok = ok && within(l.tsGilRequested, l.tsSize, 4);
    if (!ok) return badTable(ver, "an offset lies outside its structure");
    return l;
}

} // namespace gilscope::remote
