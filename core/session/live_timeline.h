#pragma once

#include "core/analysis/parallelism.h"
#include "core/sample/producer_lock.h"
#include "core/sample/sample_sink.h"
#include "core/sample/track_state.h"

#include <array>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope {

// Per thread, per time bucket: how many samples fell in it and how many of those had
// each state. Shares are counts / samples.
struct TimelineBucket {
    uint32_t samples = 0;
    uint32_t hasGil = 0;
    uint32_t gilRequested = 0;
    uint32_t onCpu = 0;
    uint32_t gc = 0;        // a <GC> frame was on the stack
    uint32_t exception = 0; // the thread was handling an exception
    // Off CPU, and why (WaitReason's kinds; I/O includes connect and accept).
    uint32_t lockWait = 0;
    uint32_t ioWait = 0;
    uint32_t sleepPoll = 0; // asleep, or an event loop waiting for readiness
    // Each sample in exactly one TrackState: what a track's column stacks, summing to
    // `samples`.
    std::array<uint32_t, kTrackStateCount> states{};
    // What the bucket's last wait was on, when the reader named it (--wait-reasons): an
    // index into TimelineSnapshot::waitLabels ("read TCP 127.0.0.1:5432"); 0: none.
    uint32_t waitLabel = 0;

    void merge(const TimelineBucket& other);
};

struct ThreadTimeline {
    uint64_t threadId = 0;
    bool mainThread = false;
    // Python's name for it (threading), else the OS's (comm) where it says more than the
    // process's; empty when neither is known (a file, an unnamed thread). See ThreadName.
    std::string name;
    uint64_t samples = 0;
    uint64_t firstUs = 0; // its first sample's time
    // buckets[i] covers [originUs + i * bucketUs, originUs + (i + 1) * bucketUs).
    std::vector<TimelineBucket> buckets;
};

// A named instant the user put on the recording (--control's mark, the window's Add
// marker), drawn across every track.
struct TimelineMark {
    uint64_t timeUs = 0; // the sampler's clock, as the buckets
    std::string text;
};

struct TimelineSnapshot {
    uint64_t originUs = 0; // first sample's timestamp
    uint64_t bucketUs = 0;
    uint64_t spanUs = 0;  // last timestamp - originUs
    uint64_t samples = 0; // thread-samples in total
    bool finished = false;
    // The target has no GIL: its GIL lanes say attached and stopped (thread_status.h).
    bool freeThreaded = false;
    uint32_t cpus = 0; // the CPUs the target may use (0: unknown)
    // Per bucket (as the threads' buckets): how many threads ran Python at once.
    std::vector<ParallelBucket> parallel;
    std::vector<std::string> waitLabels; // [0] is ""; see TimelineBucket::waitLabel
    // In the order they were first seen; those first seen in the same sample, the main
    // thread first, then by id (as a rule, the order they were started in). A thread
    // never moves once it is in: new ones come last.
    std::vector<ThreadTimeline> threads;
    std::vector<TimelineMark> marks; // in the order they were made (times ascend)
    CounterSeries counters;          // the process's memory, threads and CPU
};

struct LiveTimelineOptions {
    uint64_t bucketUs = 10'000; // 10 ms at the start: detail for short recordings
    // Per thread. When a recording outgrows it, neighbouring buckets are merged and the
    // bucket width doubles, so memory stays bounded and the whole recording stays visible.
    size_t maxBuckets = 4000;
    size_t maxThreads = 256; // samples of further threads are counted but not drawn
    // Thread names come only from the source, through nameThread(), read off the sampling
    // path (a kernel name equal to the process's is never handed on).
};

// A SampleSink that aggregates GIL / CPU / GC activity for the GUI's timelines.
// addBatch runs on the sampler thread and never waits for a reader; snapshot() may be
// called from any thread (the GUI polls it a few times a second, never once per sample).
class LiveTimeline final : public SampleSink {
public:
    explicit LiveTimeline(LiveTimelineOptions options = {});

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    // Threads the recording's --mode skips are drawn too: the timeline shows every thread.
    void addSkipped(const SampleBatch& batch) override { addBatch(batch); }
    void nameThread(uint64_t threadId, const std::string& name) override;
    // On the sampler's thread, as every sink call (Sampler::mark hands them on).
    void addMarker(uint64_t timestampUs, const std::string& text) override;
    static constexpr size_t kMaxMarks = 4096; // later ones are not drawn
    // The process's counters, for the counter tracks; on the sampler's thread too.
    void addCounters(const ProcessCounters& reading) override;
    void finish(const RecordingSummary& summary) override;

    TimelineSnapshot snapshot() const;

private:
    bool isGcFrame(FrameId id);
    uint32_t waitLabelOf(FrameId leaf);
    TimelineBucket classify(const SampleBatch& batch);
    void apply(const SampleBatch& batch); // with lock_ held
    void applyNames();                    // with lock_ held: names, marks and counters
    bool pending() const {
        return !pendingNames_.empty() || !pendingMarks_.empty() || !pendingCounters_.empty();
    }
    void copyTo(TimelineSnapshot& s) const;
    void addSample(ThreadTimeline& thread, uint64_t timestampUs, const TimelineBucket& sample);
    void halveResolution();

    const LiveTimelineOptions options_;
    const FrameRegistry* registry_ = nullptr;      // read on the sampler thread only
    IdVector<FrameId, int8_t> gcFrameCache_;       // -1 unknown, 0 no, 1 yes
    IdVector<FrameId, int32_t> waitLabelCache_;    // -1 unknown, else its waitLabels_ index
    static constexpr size_t kMaxWaitLabels = 1024; // then further peers are not named
    std::unordered_map<uint64_t, std::string> pendingNames_; // sampler thread: not set yet
    std::vector<TimelineMark> pendingMarks_;                 // likewise
    std::vector<ProcessCounters> pendingCounters_;           // likewise

    // Snapshots copy under it; the sampler never waits for it (ProducerLock).
    mutable ProducerLock lock_; // guards everything below
    bool started_ = false;
    bool finished_ = false;
    bool freeThreaded_ = false;
    uint32_t cpus_ = 0;
    std::unique_ptr<ParallelismTally> tally_; // from begin(): it needs the CPUs
    std::vector<ParallelBucket> parallel_;
    uint64_t originUs_ = 0;
    uint64_t bucketUs_ = 0;
    uint64_t lastUs_ = 0;
    uint64_t samples_ = 0;
    std::vector<ThreadTimeline> threads_; // in the order first seen
    std::unordered_map<uint64_t, size_t> threadIndex_;
    std::vector<std::string> waitLabels_{std::string()};
    std::unordered_map<uint64_t, std::string> names_; // named before their first sample
    std::vector<TimelineMark> marks_;
    CounterSeries counters_;
};

} // namespace gilscope
