#pragma once

#include "core/remote/frame_walker.h"
#include "core/remote/remote_memory.h"

#include <cstdint>
#include <sys/uio.h>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// What LiveProcessReader reads ahead in a sample's first syscall, beside the interpreter
// and the thread state it predicts: the frame data each thread's last walk needed (see
// FrameWalker::planPrefetch) and, with -a, the thread state of every thread of the last
// sample. A steady target then costs one syscall per sample.
class ReadAhead {
public:
    // Bounds one sample's batch: 8 calls of IOV_MAX ranges, ~1,500 threads.
    static constexpr size_t kMaxBatchRanges = 8 * kMaxReadRanges;

    // tstateSize: the thread state buffers' size; tstateRead: how much of it is read.
    ReadAhead(FrameWalker& walker, bool allThreads, size_t tstateSize, size_t tstateRead)
        : walker_(walker), allThreads_(allThreads), tstateSize_(tstateSize),
          tstateRead_(tstateRead) {}

    // Appends this sample's ranges to the batch (they go after what is there already).
    void plan(std::vector<iovec>& local, std::vector<iovec>& remote);
    // `complete`: how many ranges of the whole batch were read completely.
    void arrived(size_t complete);

    // Thread `addr` is read in this sample: its read-ahead state. With -a, its thread state
    // read ahead (if it came) is swapped into `tstate` unless `held` says tstate holds it
    // already; returns whether it was swapped in. What the thread does not take now is
    // not used later.
    FrameWalker::Prefetch& visit(uint64_t addr, std::vector<uint8_t>& tstate, bool held,
                                 bool& tookTstate);

    // The thread visit() was last called for was served without a walk this sample
    // (UnchangedStacks). Once that has held kSkipFramesAfter samples in a row (a thread
    // at rest, not one between two GIL switches), its frames are no longer read ahead,
    // only its thread state; its first walk after that reads them itself and starts the
    // count again.
    void servedUnchanged();
    static constexpr uint32_t kSkipFramesAfter = 8;

    // When the GIL switched since the last sample, the threads whose frames the first
    // batch skipped will be walked: their frames, planned here for one more call
    // (appended to local/remote, which the caller passes empty), arrive through
    // skippedArrived(). Returns how many ranges it planned.
    size_t planSkipped(std::vector<iovec>& local, std::vector<iovec>& remote);
    void skippedArrived(size_t complete);

    // After the sample: forgets threads that are gone.
    void endSample();

private:
    struct ThreadAhead {
        std::vector<uint8_t> tstate;
        bool tstateOk = false;
        FrameWalker::Prefetch frames;
        uint64_t seen = 0;
        uint32_t servedRun = 0; // samples in a row served by UnchangedStacks
        bool servedNow = false;
    };
    struct PlannedThread {
        ThreadAhead* ahead; // entries are only erased after dropPlanned()
        size_t tstateIndex, frameRanges;
        size_t lateIndex = 0, lateRanges = 0; // planSkipped's, in its own batch
    };
    void dropPlanned();

    FrameWalker& walker_;
    bool allThreads_;
    size_t tstateSize_, tstateRead_;
    size_t first_ = 0;           // batch index of the first range planned here
    FrameWalker::Prefetch main_; // without -a: the main thread's
    std::unordered_map<uint64_t, ThreadAhead> threads_; // with -a, by thread state address
    std::vector<uint64_t> lastThreads_, threadsNow_;
    std::vector<ThreadAhead*> aheadNow_; // this sample's visits, as threadsNow_
    ThreadAhead* visiting_ = nullptr;    // the last visit()'s, this sample
    std::vector<PlannedThread> planned_;
    uint64_t sampleNo_ = 0;
};

} // namespace gilscope::remote
