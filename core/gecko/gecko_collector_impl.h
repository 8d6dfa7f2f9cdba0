#pragma once

// Private to core/gecko: the collector's state, shared by ingest and export.

#include "core/gecko/gecko_collector.h"
#include "core/gecko/gecko_counters.h"
#include "core/gecko/gecko_strings.h"
#include "core/gecko/gecko_thread.h"
#include "core/util/temp_dir.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope {

struct GeckoCollector::Impl {
    explicit Impl(GeckoOptions o);

    void addBatch(const SampleBatch& batch);
    Status exportTo(const std::filesystem::path* dest, AtomicFile* made,
                    const ProgressCallback& progress, const CancelToken* cancel);
    void cleanup(); // removes the spill directory

    // ingest helpers (gecko_ingest.cpp)
    GeckoThread* threadFor(uint64_t tid, bool isMain);
    void runStateMachine(GeckoThread& th, uint32_t status, bool hasGc, double t);
    void transition(GeckoThread& th, bool cond, MarkerKind active, MarkerKind inactive, double t);
    void closeInterval(GeckoThread& th, MarkerKind kind, double end);
    void openInterval(GeckoThread& th, MarkerKind kind, double t, bool overwrite);
    int32_t stackFor(GeckoThread& th, std::span<const FrameId> frames, size_t common);
    uint32_t frameFor(GeckoThread& th, FrameId id, const FrameFacts& f);
    uint32_t funcFor(GeckoThread& th, const FrameFacts& f);
    void trackOpcode(GeckoThread& th, double firstTime);
    void emitOpcodeMarker(GeckoThread& th, const OpcodeState& st, double end);
    // --label-from: an interval marker per run of samples with the same value of a label
    // (its root pseudo-frames), named by the key, the value in its data.
    void trackLabels(GeckoThread& th, std::span<const FrameId> frames, double t);
    void emitLabelMarker(GeckoThread& th, const OpenLabel& label, double end);
    bool wroteLabels = false; // meta.markerSchema then describes them
    void emitInterval(GeckoThread& th, MarkerKind kind, double start, double end);
    void finalizeMarkers();
    // The user's marks (addMarker), on the main thread (else the first) at export.
    void emitUserMarks();
    std::vector<std::pair<uint64_t, std::string>> userMarks;
    bool wroteUserMarks = false; // meta.markerSchema then describes them
    CounterSeries counters;      // addCounters(): the export's "counters"
    // How many threads ran Python at once (from begin(): it needs the CPUs), and its
    // windows, a counter of the export too.
    std::unique_ptr<ParallelismTally> tally;
    ParallelWindows parallel;
    void fail(Error e);
    void spillFailed(Error e); // the spill disk failed: data stays in memory, recording stops

    GeckoOptions opt;
    const FrameRegistry* registry = nullptr;
    int pythonMinor = 15;      // the target's, from begin(): picks the opcode table
    bool freeThreaded = false; // no GIL: no GIL markers, nor Python/native code from them
    double startTimeMs = 0;
    double interval = 1.0;
    double intervalSpan = 0;    // operands of CPython's last in-collect interval update
    uint64_t intervalCount = 0; // 0: no update happened

    bool haveBase = false;
    uint64_t baseUs = 0;
    uint64_t sampleCount = 0;
    double lastSampleTime = 0;
    uint64_t seq = 0;
    bool usesWaitCategories = false; // a wait marker was emitted: list the wait categories

    bool exportStarted = false; // no more samples once an export began
    bool markersFinal = false;  // open intervals were closed for the first export
    // An export was committed (the spill is gone): set by the export, a worker thread in
    // the GUI, and read by the GUI thread meanwhile.
    std::atomic<bool> exported{false};
    std::optional<Error> misuse; // a batch after a committed export
    std::optional<Error> spillError;

    GeckoStrings strings;
    RegistryFacts facts;
    // --native-stacks: the libraries of native frames (canonical file ids), in first-seen
    // order, written as the profile's top-level "libs".
    std::vector<uint32_t> libs;
    std::unordered_map<uint32_t, uint32_t> libIndex;
    std::vector<std::unique_ptr<GeckoThread>> threads; // first-seen order
    std::unordered_map<uint64_t, uint32_t> threadIndex;
    std::unordered_map<uint64_t, std::string> threadNames; // nameThread(): "name (tid)"

    GeckoThread* lastThread = nullptr;
    TempDir spillDir;
    std::unique_ptr<SpillStore> spill; // one file in spillDir for every thread's columns
};

} // namespace gilscope
