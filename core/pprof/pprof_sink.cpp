#include "core/pprof/pprof_sink.h"

#include "core/pprof/counter_comments.h"
#include "core/pprof/gzip.h"
#include "core/sampler/sampler_clock.h"

#include <algorithm>
#include <ctime>

namespace gilscope::pprof {

namespace {

int64_t clockNs(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

PprofSink::PprofSink(PprofSinkOptions options)
    : options_(options), profile_(std::make_unique<PprofProfile>(options.traceIds)) {
}

void PprofSink::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    registry_ = &registry;
    periodNs_ = static_cast<int64_t>(std::max<uint64_t>(info.sampleIntervalUs, 1)) * 1000;
    freeThreaded_ = info.freeThreaded;
    wallOffsetNs_ = clockNs(CLOCK_REALTIME) - clockNs(CLOCK_MONOTONIC);
    const std::lock_guard lock(mutex_);
    windowStartUs_ = info.startTimeUs;
    lastStacks_.clear(); // frame ids of another registry
}

int64_t PprofSink::wallNs(uint64_t monotonicUs) const {
    return static_cast<int64_t>(monotonicUs) * 1000 + wallOffsetNs_;
}

void PprofSink::nameThread(uint64_t threadId, const std::string& name) {
    constexpr size_t kMaxNamedThreads = 1 << 15; // a churning target cannot grow it further
    const std::lock_guard lock(mutex_);
    if (givenNames_.size() >= kMaxNamedThreads && !givenNames_.count(threadId)) return;
    givenNames_[threadId] = name;
    if (threads_.count(threadId)) profile_->setThreadName(threadId, name);
}

// On a thread's first sample of each profile: the name the source handed on (Python's, or
// the kernel's where it says more than the process's), as it is by then.
void PprofSink::labelThread(uint64_t threadId) {
    if (auto given = givenNames_.find(threadId); given != givenNames_.end())
        profile_->setThreadName(threadId, given->second);
}

void PprofSink::addBatch(const SampleBatch& batch) {
    if (!registry_ || batch.frames.empty() || batch.timestampsUs.empty()) return;
    const std::lock_guard lock(mutex_);
    LastStack& last = lastStacks_[batch.threadId];
    if (last.frames.empty() || !std::equal(last.frames.begin(), last.frames.end(),
                                           batch.frames.begin(), batch.frames.end())) {
        last.frames.assign(batch.frames.begin(), batch.frames.end());
        last.stack = profile_->internStack(batch.frames, *registry_);
    }
    const uint32_t stack = last.stack;
    const ThreadState state =
        threadStateOf(batch.status, profile_->stackHasGc(stack), freeThreaded_);
    profile_->add(stack, batch.threadId, state, batch.timestampsUs.size());
    if (threads_.insert(batch.threadId).second) labelThread(batch.threadId);
    firstUs_ = std::min(firstUs_, batch.timestampsUs.front());
    lastUs_ = std::max(lastUs_, batch.timestampsUs.back());
    total_ += batch.timestampsUs.size();
}

void PprofSink::finish(const RecordingSummary&) {
    // Names given after a thread's first sample (3.14+ threads, early in the recording).
    const std::lock_guard lock(mutex_);
    for (uint64_t tid : threads_)
        labelThread(tid);
}

void PprofSink::addCounters(const ProcessCounters& reading) {
    const std::lock_guard lock(mutex_);
    counters_.add(reading);
}

TakenProfile PprofSink::take(bool byClock) {
    TakenProfile taken;
    taken.profile = std::make_unique<PprofProfile>(options_.traceIds); // made outside the lock
    uint64_t startUs, endUs;
    CounterSeries counters;
    {
        const std::lock_guard lock(mutex_);
        std::swap(taken.profile, profile_);
        std::swap(counters, counters_);
        // The next window starts where this one ended: its CPU and memory change is whole.
        if (!counters.empty()) counters_.add(counters.readings().back());
        threads_.clear();
        lastStacks_.clear(); // their stack ids were profile_'s
        if (byClock) {
            startUs = windowStartUs_;
            endUs = std::max(monotonicNowUs(), startUs);
            windowStartUs_ = endUs;
        } else {
            startUs = firstUs_ == UINT64_MAX ? windowStartUs_ : firstUs_;
            endUs = std::max(lastUs_, startUs) + static_cast<uint64_t>(periodNs_ / 1000);
        }
        if (options_.wallClockEndNs && lastUs_ > 0)
            wallOffsetNs_ = *options_.wallClockEndNs - static_cast<int64_t>(lastUs_) * 1000;
        firstUs_ = UINT64_MAX;
        lastUs_ = 0;
    }
    taken.header.wall = options_.wall;
    taken.header.periodNs = periodNs_;
    taken.header.timeNanos = wallNs(startUs);
    taken.header.durationNs = static_cast<int64_t>(endUs - startUs) * 1000;
    taken.header.comments = counterComments(counters);
    return taken;
}

Result<std::string> encodeGzipped(const TakenProfile& taken) {
    auto encoded = taken.profile->encode(taken.header);
    if (!encoded) return encoded.error();
    return gzipCompress(*encoded);
}

Status writePprof(const TakenProfile& taken, AtomicFile file) {
    auto bytes = encodeGzipped(taken);
    if (!bytes) return bytes.error();
    if (Status s = file.write(*bytes); !s) return s;
    return file.commit();
}

uint64_t PprofSink::totalSamples() const {
    const std::lock_guard lock(mutex_);
    return total_;
}

} // namespace gilscope::pprof
