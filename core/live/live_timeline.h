#pragma once

#include "core/sample/producer_lock.h"
#include "core/sample/sample_sink.h"

#include <cstdint>
#include <map>
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

    void merge(const TimelineBucket& other);
};

struct ThreadTimeline {
    uint64_t threadId = 0;
    bool mainThread = false;
    std::string name; // the kernel's thread name (comm) when read live; empty otherwise
    uint64_t samples = 0;
    // buckets[i] covers [originUs + i * bucketUs, originUs + (i + 1) * bucketUs).
    std::vector<TimelineBucket> buckets;
};

struct TimelineSnapshot {
    uint64_t originUs = 0; // first sample's timestamp
    uint64_t bucketUs = 0;
    uint64_t spanUs = 0;  // last timestamp - originUs
    uint64_t samples = 0; // thread-samples in total
    bool finished = false;
    std::string
        processName; // the target's comm when read live: thread names equal to it say nothing
    std::vector<ThreadTimeline> threads; // ordered by thread id, main thread first
};

struct LiveTimelineOptions {
    uint64_t bucketUs = 10'000; // 10 ms at the start: detail for short recordings
    // Per thread. When a recording outgrows it, neighbouring buckets are merged and the
    // bucket width doubles, so memory stays bounded and the whole recording stays visible.
    size_t maxBuckets = 4000;
    size_t maxThreads = 256; // samples of further threads are counted but not drawn
    // Read thread names from /proc/PID/task/TID/comm (a live local target only): on a
    // thread's first sample and then at most once a second of its samples, because
    // CPython 3.14+ names a thread once it has started running.
    bool readThreadNames = false;
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
    void finish(const RecordingSummary& summary) override;

    TimelineSnapshot snapshot() const;

private:
    bool isGcFrame(FrameId id);
    TimelineBucket classify(const SampleBatch& batch);
    void apply(const SampleBatch& batch); // with lock_ held
    void applyNames();                    // with lock_ held
    void copyTo(TimelineSnapshot& s) const;
    void addSample(ThreadTimeline& thread, uint64_t timestampUs, const TimelineBucket& sample);
    void halveResolution();
    void refreshName(uint64_t threadId, uint64_t timestampUs);

    const LiveTimelineOptions options_;
    const FrameRegistry* registry_ = nullptr; // read on the sampler thread only
    std::vector<int8_t> gcFrameCache_;        // per FrameId: -1 unknown, 0 no, 1 yes
    int pid_ = 0;                             // set in begin(); names are read only when > 0
    std::unordered_map<uint64_t, uint64_t> nameReadUs_;      // sampler thread: last comm read
    std::unordered_map<uint64_t, std::string> pendingNames_; // sampler thread: read, not set

    // Snapshots copy under it; the sampler never waits for it (ProducerLock).
    mutable ProducerLock lock_; // guards everything below
    bool started_ = false;
    bool finished_ = false;
    uint64_t originUs_ = 0;
    uint64_t bucketUs_ = 0;
    uint64_t lastUs_ = 0;
    uint64_t samples_ = 0;
    std::string processName_;
    std::map<uint64_t, ThreadTimeline> threads_;
};

} // namespace gilscope
