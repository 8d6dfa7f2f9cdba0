#pragma once

#include "core/analysis/parallelism.h"
#include "core/analysis/profile_snapshot.h"
#include "core/analysis/sample_store.h"
#include "core/analysis/stack_chart.h"
#include "core/analysis/stack_interner.h"
#include "core/analysis/track_columns.h"
#include "core/common/error.h"
#include "core/gecko/flat_map.h"
#include "core/sample/producer_lock.h"
#include "core/sample/sample_sink.h"
#include "core/util/cancel.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace gilscope {

// The analysis model: one more SampleSink of a recording (or of a .bin replay). It
// interns stacks into a prefix tree and keeps, per sample, the stack id, time, thread
// and status (SampleStore, spilled to disk), plus counts per (stack, thread, status)
// for the queries that need no time.
//
// Threading: begin/addBatch/finish on the producer thread; query() from any thread,
// concurrently with addBatch (the lock is held only to copy, never while scanning, and
// addBatch never waits for it: see ProducerLock).
class ProfileModel final : public SampleSink {
public:
    ProfileModel();
    ~ProfileModel() override;
    ProfileModel(const ProfileModel&) = delete;
    ProfileModel& operator=(const ProfileModel&) = delete;

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void nameThread(uint64_t threadId, const std::string& name) override;
    void finish(const RecordingSummary& summary) override;

    // Filtered counts per stack. Fails only on a spill read error or when cancelled.
    Result<std::shared_ptr<const ProfileSnapshot>> query(const ProfileFilter& filter,
                                                         const CancelToken* cancel = nullptr) const;

    // The stack chart of a time window at a pixel width (stack_chart.cpp). Fails only on
    // a spill read error or when cancelled.
    Result<std::shared_ptr<const StackChart>> stackChart(const StackChartRequest& request,
                                                         const CancelToken* cancel = nullptr) const;

    // Each thread's track for a time window at a pixel width (track_columns.cpp): the
    // time in each state per column, exact at every zoom. Fails only on a spill read error
    // or when cancelled.
    Result<std::shared_ptr<const TrackColumns>>
    trackColumns(const TrackColumnsRequest& request, const CancelToken* cancel = nullptr) const;

    uint64_t sampleCount() const;

    // How many threads ran Python at once over the filter's range and threads, and the
    // stop-the-world pauses in it (parallelism.h). Fails only on a spill read error or
    // when cancelled.
    struct Parallelism {
        ParallelismSummary summary;
        std::vector<StopTheWorldPause> pauses;
        bool freeThreaded = false;
    };
    Result<Parallelism> parallelism(const ProfileFilter& filter,
                                    const CancelToken* cancel = nullptr) const;

private:
    struct ThreadState {
        uint64_t threadId = 0;
        bool mainThread = false;
        uint64_t samples = 0;
        StackInterner::PathCache path;
        uint32_t lastCount = UINT32_MAX; // index in countValues_ of (lastStack, lastStatus)
        StackId lastStack{UINT32_MAX};
        uint8_t lastStatus = 0;
    };
    // Sample records name a thread in 16 bits: the 65,537th thread gets no slot (null),
    // and its samples are counted as not kept rather than merged into another thread's.
    static constexpr size_t kMaxThreads = 65536;
    ThreadState* threadFor(uint64_t tid, ThreadIndex& index);
    std::shared_ptr<const CallNodeChildren> callChildren(const CallNodes& calls) const;
    mutable std::mutex callChildrenMutex_;
    mutable std::shared_ptr<const CallNodeChildren> callChildren_;
    void apply(const SampleBatch& batch);                    // with lock_ held
    void applyNames();                                       // with lock_ held
    std::unordered_map<uint64_t, std::string> pendingNames_; // sampler thread: not set yet

    mutable ProducerLock lock_; // guards everything below
    StackInterner interner_;
    SampleStore store_;
    std::vector<ThreadState> threads_;
    std::unordered_map<uint64_t, ThreadIndex> threadIndex_;
    std::unordered_map<uint64_t, std::string> threadNames_; // nameThread(), bounded
    // Samples per (stack, thread, status): key node << 24 | thread << 8 | status.
    FlatMap64 countIndex_; // key -> index into the two vectors below
    std::vector<uint64_t> countKeys_;
    std::vector<uint64_t> countValues_;
    bool started_ = false;
    bool finished_ = false;
    uint64_t originUs_ = 0;
    uint64_t lastUs_ = 0;
    uint64_t intervalUs_ = 0;
    int recordedMode_ = -1;
    int pythonMinor_ = 0;
    bool freeThreaded_ = false;
    uint32_t cpus_ = 0;
    uint64_t samples_ = 0;
    uint64_t overflowSamples_ = 0; // of threads past kMaxThreads: not kept
};

} // namespace gilscope
