#pragma once

#include "core/gecko/flat_map.h"
#include "core/gecko/gecko_strings.h"
#include "core/gecko/spill_column.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope {

// Marker kinds. The first ten are CPython's interval dictionaries, in the order
// _finalize_markers() closes them; the wait kinds follow.
enum MarkerKind : uint8_t {
    kHasGil,
    kNoGil,
    kOnCpu,
    kOffCpu,
    kPythonCode,
    kNativeCode,
    kGilWait,
    kGcCollecting,
    kHasException,
    kNoException,
    // gilscope's: off CPU and why (WaitReason's kinds), never opened for a CPython .bin.
    kLockWait,
    kIoWait,
    kPollWait,
    kSleepWait,
    // Free-threaded targets, in place of the GIL kinds: attached or not, and suspended by
    // a stop-the-world request.
    kAttached,
    kDetached,
    kStopped,
    kIntervalKinds,
    kOpcodeMarker = kIntervalKinds,
    kUserMarker,  // the control socket's `mark TEXT`: its text is the marker's name
    kLabelMarker, // a run of samples with one --label-from value: named by its key
};

struct MarkerKindInfo {
    const char* name; // marker name
    const char* type; // data.type: the name without spaces
    uint8_t category;
};
extern const MarkerKindInfo kMarkerKinds[kIntervalKinds];

// Spilled marker payload ("data" column), fixed size.
struct MarkerRecord {
    uint8_t kind = 0;
    uint8_t opcode = 0;
    uint16_t pad0 = 0;
    int32_t column = -1;   // opcode markers: -1 = null
    uint32_t function = 0; // opcode markers: stringArray index of the function name
    uint32_t pad1 = 0;
    int64_t line = kNullLine; // opcode markers
    double duration = 0;
};
static_assert(sizeof(MarkerRecord) == 32);

// One open interval (a CPython dict entry tid -> start). seq orders entries the way a
// Python dict's insertion order would.
struct OpenInterval {
    bool open = false;
    double start = 0;
    uint64_t seq = 0;
};

struct OpcodeState {
    bool present = false;
    uint8_t opcode = kNoOpcode;
    int64_t line = kNullLine;
    int32_t column = -1;
    uint32_t func = 0; // canonical ids, for the comparison
    uint32_t file = 0;
    uint32_t functionName = 0; // stringArray index, for the marker
    double start = 0;
    uint64_t seq = 0;
};

// One label's run on a thread (--label-from): its samples so far carry key=value.
struct OpenLabel {
    std::string key, value;
    double start = 0;
};

struct FrameKey {
    uint32_t func;
    int32_t column;
    int64_t line;
    bool operator==(const FrameKey&) const = default;
};
struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const noexcept {
        uint64_t h = k.func * 0x9E3779B97F4A7C15ull;
        h ^= static_cast<uint64_t>(k.line) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
        h ^= static_cast<uint64_t>(static_cast<uint32_t>(k.column)) + (h << 6) + (h >> 2);
        return static_cast<size_t>(h);
    }
};

// Everything one Gecko thread owns: the deduplicated tables (memory, bounded by the
// number of distinct stacks), the spilled sample and marker columns (disk), and the
// marker state machine.
struct GeckoThread {
    GeckoThread(SpillStore* store, uint64_t tid, bool isMain, size_t bufferBytes);

    uint64_t tid;
    bool isMainThread;
    bool initialized = false; // has been through the state machine once
    bool hasTime = false;
    double lastTime = 0; // latest time used on this thread (kept monotonic)

    // stackTable
    std::vector<uint32_t> stackFrame;
    std::vector<int32_t> stackPrefix; // -1 = null
    std::vector<uint8_t> stackCategory;
    FlatMap64 stackIndex; // frame << 32 | (prefix + 1)
    // frameTable
    std::vector<uint32_t> frameFunc;
    std::vector<uint8_t> frameCategory;
    std::vector<int64_t> frameLine;   // kNullLine = null
    std::vector<int32_t> frameColumn; // -1 = null
    std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frameIndex;
    // funcTable
    std::vector<uint32_t> funcName;
    std::vector<uint8_t> funcIsJs;
    std::vector<uint32_t> funcResource;
    std::vector<int64_t> funcFileName;                // -1 = null
    std::vector<int64_t> funcLine;                    // kNullLine = null
    std::unordered_map<uint64_t, uint32_t> funcIndex; // file << 32 | func (canonical)
    // resourceTable
    std::vector<uint32_t> resourceName;
    std::vector<int64_t> resourceLib; // index into the profile's libs, -1 = null
    std::unordered_map<uint32_t, uint32_t> resourceIndex; // canonical file

    // Fast path: registry frame -> frameTable index + 1 (0 = not looked up yet).
    IdVector<FrameId, uint32_t> localFrame;
    // The previous batch's stack (leaf first) and, per depth from the root, the stack
    // index after that frame, so a stack that shares its root part reuses the walk.
    std::vector<FrameId> lastFrames;
    std::vector<int32_t> lastChain;
    std::vector<uint8_t> chainGc;   // per depth: a <GC> frame at or above it
    std::vector<int32_t> chainLeaf; // per depth: innermost unfiltered FrameId so far, -1 none
    int32_t lastStack = -1;
    bool lastHasGc = false;
    int32_t lastLeaf = -1; // registry FrameId of the innermost unfiltered frame, -1 none

    // Markers
    std::array<OpenInterval, kIntervalKinds> open{};
    OpcodeState opcode;
    std::vector<OpenLabel> labels; // by key, in the order they opened

    // Spilled columns (CPython's GeckoThreadSpill).
    SpillColumn samplesStack;
    SpillColumn samplesTime;
    SpillColumn markersName;
    SpillColumn markersStart;
    SpillColumn markersEnd;
    SpillColumn markersPhase;
    SpillColumn markersCategory;
    SpillColumn markersData;

    uint64_t sampleCount() const { return samplesStack.count(); }
    uint64_t markerCount() const { return markersName.count(); }

    Status appendSample(int32_t stack, double time) {
        Status s = samplesStack.append(stack);
        Status t = samplesTime.append(time); // even when the first failed: equal counts
        return s.ok() ? t : s;
    }
    Status appendMarker(uint32_t name, double start, double end, uint8_t category,
                        const MarkerRecord& data);
};

} // namespace gilscope
