#include "core/remote/read_ahead.h"

#include <algorithm>

namespace gilscope::remote {

void ReadAhead::plan(std::vector<iovec>& local, std::vector<iovec>& remote) {
    first_ = local.size();
    ++sampleNo_;
    if (!allThreads_) {
        walker_.planPrefetch(main_, local, remote);
        return;
    }
    dropPlanned(); // a sample that failed early left its plan behind
    // The batch goes out in IOV_MAX-sized calls (ProcessMemory::readBatch); threads past
    // kMaxBatchRanges are read one by one.
    for (uint64_t t : lastThreads_) {
        if (local.size() + 2 + FrameWalker::Prefetch::kMaxFrames > kMaxBatchRanges) break;
        ThreadAhead& a = threads_[t];
        a.tstate.resize(tstateSize_);
        const size_t at = local.size();
        local.push_back({a.tstate.data(), tstateRead_});
        remote.push_back({reinterpret_cast<void*>(t), tstateRead_});
        const size_t frames =
            a.servedRun >= kSkipFramesAfter ? 0 : walker_.planPrefetch(a.frames, local, remote);
        planned_.push_back({&a, at, frames, 0, 0});
    }
}

void ReadAhead::arrived(size_t done) {
    if (!allThreads_) {
        walker_.prefetchArrived(main_, done > first_ ? done - first_ : 0);
        return;
    }
    for (const PlannedThread& p : planned_) {
        p.ahead->tstateOk = done > p.tstateIndex;
        const size_t first = p.tstateIndex + 1;
        walker_.prefetchArrived(p.ahead->frames,
                                done > first ? std::min(done - first, p.frameRanges) : 0);
    }
}

size_t ReadAhead::planSkipped(std::vector<iovec>& local, std::vector<iovec>& remote) {
    size_t planned = 0;
    for (PlannedThread& p : planned_) {
        if (p.frameRanges != 0 || p.ahead->servedRun < kSkipFramesAfter) continue;
        if (local.size() + FrameWalker::Prefetch::kMaxFrames + 1 > kMaxBatchRanges) break;
        p.lateIndex = local.size();
        p.lateRanges = walker_.planPrefetch(p.ahead->frames, local, remote);
        planned += p.lateRanges;
    }
    return planned;
}

void ReadAhead::skippedArrived(size_t done) {
    for (const PlannedThread& p : planned_)
        if (p.lateRanges)
            walker_.prefetchArrived(p.ahead->frames,
                                    done > p.lateIndex ? std::min(done - p.lateIndex, p.lateRanges)
                                                       : 0);
}

FrameWalker::Prefetch& ReadAhead::visit(uint64_t addr, std::vector<uint8_t>& tstate, bool held,
                                        bool& tookTstate) {
    tookTstate = false;
    if (!allThreads_) return main_;
    ThreadAhead& a = threads_[addr];
    a.seen = sampleNo_;
    a.servedNow = false;
    threadsNow_.push_back(addr);
    aheadNow_.push_back(&a); // map nodes stay put until endSample() erases
    visiting_ = &a;
    if (a.tstateOk && !held && a.tstate.size() == tstate.size()) {
        tstate.swap(a.tstate); // same size; the next plan reuses the other buffer
        tookTstate = true;
    }
    a.tstateOk = false; // served this sample only
    return a.frames;
}

void ReadAhead::servedUnchanged() {
    if (visiting_) visiting_->servedNow = true;
}

void ReadAhead::dropPlanned() {
    // What the batch brought for threads the walk did not reach is stale by next sample.
    for (const PlannedThread& p : planned_) {
        p.ahead->tstateOk = false;
        FrameWalker::dropPrefetch(p.ahead->frames);
    }
    planned_.clear();
}

void ReadAhead::endSample() {
    if (!allThreads_) return;
    for (ThreadAhead* a : aheadNow_)
        a->servedRun = a->servedNow ? a->servedRun + 1 : 0;
    aheadNow_.clear();
    visiting_ = nullptr;
    lastThreads_.swap(threadsNow_);
    threadsNow_.clear();
    dropPlanned(); // before any entry it points to goes
    if (threads_.size() <= lastThreads_.size()) return;
    for (auto it = threads_.begin(); it != threads_.end();)
        it = it->second.seen == sampleNo_ ? std::next(it) : threads_.erase(it);
}

} // namespace gilscope::remote
