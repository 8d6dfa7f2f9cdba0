#include "core/analysis/parallelism.h"

#include "core/sample/thread_status.h"

#include <algorithm>

namespace gilscope {

void ParallelismTally::add(uint64_t timeUs, uint8_t compactStatus, ThreadIndex thread,
                           StackId stack) {
    const bool held = compactStatus & ThreadStatus::HasGil;
    const bool waits = compactStatus & ThreadStatus::GilRequested;
    if (anyCounted_ && timeUs <= countedUpTo_) {
        // Its tick was counted already (a replayed .bin's long run of one thread's samples
        // came after the others'). One that neither ran nor wanted to changes no count:
        // dropped. Another is counted as a tick of its own, and told.
        if (!held && !waits) return;
        ++lateSamples_;
    }
    // A tick's samples come one after another (a live sampler's, a gilscope .bin's): one
    // map lookup per tick, not per sample; a new latest tick goes at the end.
    if (!haveLast_ || last_->first != timeUs) {
        last_ = !open_.empty() && open_.rbegin()->first < timeUs
                    ? open_.emplace_hint(open_.end(), timeUs, Tick{})
                    : open_.try_emplace(timeUs).first;
        haveLast_ = true;
    }
    Tick& tick = last_->second;
    // Wall mode reads no CPU state (Unknown): a thread holding the GIL then counts as on one.
    const bool onCpu = compactStatus & (ThreadStatus::OnCpu | ThreadStatus::Unknown);
    if (held && onCpu) ++tick.running;
    if (held || waits) ++tick.wanting;
    if (freeThreaded_ && waits) ++tick.stopped;
    if (held) {
        ++tick.attached;
        tick.attachedThread = thread;
        tick.attachedStack = stack;
    }
    while (open_.size() > reorderTicks_) {
        const auto first = open_.begin();
        if (first == last_) haveLast_ = false;
        count(first->first, first->second);
        open_.erase(first);
    }
}

void ParallelismTally::finish() {
    for (const auto& [timeUs, tick] : open_)
        count(timeUs, tick);
    if (pauseTickOpen_) endPauseTick(pauseTickUs_ + intervalUs_);
    open_.clear();
    haveLast_ = false;
    inPause_ = false;
}

void ParallelismTally::endPauseTick(uint64_t nextUs) {
    const uint64_t span =
        std::min(nextUs > pauseTickUs_ ? nextUs - pauseTickUs_ : intervalUs_, 2 * intervalUs_);
    StopTheWorldPause& pause = pauses_.back();
    pause.durationUs += span;
    pause.lostUs += uint64_t(pauseTickStopped_) * span;
    pauseTickOpen_ = false;
}

void ParallelismTally::count(uint64_t timeUs, const Tick& tick) {
    if (pauseTickOpen_) endPauseTick(timeUs);
    const uint32_t running = cpus_ ? std::min(tick.running, cpus_) : tick.running;
    ++ticks_;
    runningSum_ += running;
    wantingSum_ += tick.wanting;
    peak_ = std::max(peak_, running);
    mostWanting_ = std::max(mostWanting_, tick.wanting);
    if (byRunning_.size() <= running) byRunning_.resize(running + 1, 0);
    ++byRunning_[running];
    countedUpTo_ = std::max(countedUpTo_, timeUs);
    anyCounted_ = true;
    if (tickSink_) tickSink_(timeUs, {running, tick.wanting, freeThreaded_ ? tick.stopped : 0});

    if (tick.stopped == 0) {
        inPause_ = false;
        return;
    }
    if (!inPause_) {
        pauses_.push_back({});
        pauses_.back().firstUs = timeUs;
        inPause_ = true;
    }
    StopTheWorldPause& pause = pauses_.back();
    pause.lastUs = timeUs;
    ++pause.ticks;
    pause.maxStopped = std::max(pause.maxStopped, tick.stopped);
    pause.stoppedSamples += tick.stopped;
    pauseTickOpen_ = true;
    pauseTickUs_ = timeUs;
    pauseTickStopped_ = tick.stopped;
    // The runtime lets only the requester stay attached: one attached thread is it.
    if (!pause.requester && tick.attached == 1) {
        pause.requester = tick.attachedThread;
        pause.requesterStack = tick.attachedStack;
    }
}

ParallelismSummary ParallelismTally::summary() const {
    ParallelismSummary s;
    s.ticks = ticks_;
    s.cpus = cpus_;
    s.ceiling = !freeThreaded_ ? 1 : cpus_ ? cpus_ : std::max<uint32_t>(mostWanting_, 1);
    if (ticks_) {
        s.meanRunning = double(runningSum_) / double(ticks_);
        s.meanWanting = double(wantingSum_) / double(ticks_);
    }
    s.peakRunning = peak_;
    s.ticksByRunning = byRunning_;
    for (size_t n = s.ceiling; n < byRunning_.size(); ++n)
        s.ticksAtCeiling += byRunning_[n];
    s.lateSamples = lateSamples_;
    return s;
}

} // namespace gilscope
