#pragma once

#include "core/pprof/pprof_profile.h"
#include "core/sample/sample_sink.h"
#include "core/util/atomic_file.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace gilscope::pprof {

struct PprofSinkOptions {
    bool wall = true; // --mode wall: wall/nanoseconds, else cpu/nanoseconds
    // When the recording ended (Unix ns; its last sample), for a replayed .bin whose
    // timestamps are another boot's monotonic clock: the file's modification time. A
    // live recording maps its timestamps to the wall clock itself.
    std::optional<int64_t> wallClockEndNs;
    // trace_id labels kept (PprofProfile): false for a push.
    bool traceIds = true;
};

// A profile and the header that goes with it.
struct TakenProfile {
    std::unique_ptr<PprofProfile> profile;
    ProfileHeader header;
};

// The gzip'd profile: what a .pb.gz file holds and what a push sends.
Result<std::string> encodeGzipped(const TakenProfile& taken);
// Writes it whole into `file` (made before recording started) or not at all.
Status writePprof(const TakenProfile& taken, AtomicFile file);

// The pprof output's sink: aggregates samples into a PprofProfile as they arrive. The
// whole recording is one profile (take() after finish), or, for a continuous push,
// another thread take()s the samples since its last take every interval: the producer
// waits only for the swap of two pointers, never for encoding or the network.
class PprofSink final : public SampleSink {
public:
    explicit PprofSink(PprofSinkOptions options = {});

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void finish(const RecordingSummary& summary) override;

    // What was recorded since the last take, with a fresh profile for what follows.
    // byClock: the header covers the time since the last take (a push interval);
    // otherwise the span of its samples (a whole recording).
    TakenProfile take(bool byClock);
    uint64_t totalSamples() const;
    // The source's names (Python's threading names, read off the sampling path).
    void nameThread(uint64_t threadId, const std::string& name) override;
    // Kept for the profile's comments (counter_comments.h), one take's worth at a time.
    void addCounters(const ProcessCounters& reading) override;

private:
    void labelThread(uint64_t threadId); // with mutex_ held
    int64_t wallNs(uint64_t monotonicUs) const;

    const PprofSinkOptions options_;
    const FrameRegistry* registry_ = nullptr;
    int64_t periodNs_ = 1'000'000;
    bool freeThreaded_ = false; // the GIL bits say attached and stopped
    int64_t wallOffsetNs_ = 0;  // wall-clock ns = monotonic µs * 1000 + this

    mutable std::mutex mutex_; // guards what follows: the producer and take() share it
    std::unique_ptr<PprofProfile> profile_;
    std::unordered_set<uint64_t> threads_; // threads of profile_ (names read once each)
    // Each thread's last stack in profile_: a thread at rest gives the same one tick after
    // tick, found by comparing it rather than by hashing and interning it again.
    struct LastStack {
        std::vector<FrameId> frames;
        uint32_t stack = 0;
    };
    std::unordered_map<uint64_t, LastStack> lastStacks_;   // bounded by threads_
    std::unordered_map<uint64_t, std::string> givenNames_; // nameThread(), bounded
    uint64_t windowStartUs_ = 0;                           // monotonic: the last take (or begin)
    uint64_t firstUs_ = UINT64_MAX, lastUs_ = 0;
    uint64_t total_ = 0;
    CounterSeries counters_; // since the last take
};

} // namespace gilscope::pprof
