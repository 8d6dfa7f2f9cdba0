#include "core/session/live_timeline.h"

#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"

#include <algorithm>

namespace gilscope {

void TimelineBucket::merge(const TimelineBucket& other) {
    samples += other.samples;
    hasGil += other.hasGil;
    gilRequested += other.gilRequested;
    onCpu += other.onCpu;
    gc += other.gc;
    exception += other.exception;
    lockWait += other.lockWait;
    ioWait += other.ioWait;
    sleepPoll += other.sleepPoll;
    for (int s = 0; s < kTrackStateCount; ++s)
        states[size_t(s)] += other.states[size_t(s)];
    if (other.waitLabel) waitLabel = other.waitLabel; // the later one
}

LiveTimeline::LiveTimeline(LiveTimelineOptions options)
    : options_(options), bucketUs_(std::max<uint64_t>(options.bucketUs, 1)) {
}

void LiveTimeline::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    registry_ = &registry;
    lock_.drain([this](const SampleBatch& b) { apply(b); },
                [this, &info] {
                    freeThreaded_ = info.freeThreaded;
                    cpus_ = info.cpus;
                    // A live recording's ticks come in order: a few held back are enough,
                    // and the track keeps up. A file's come a thread's run at a time.
                    tally_ = std::make_unique<ParallelismTally>(
                        cpus_, freeThreaded_, info.sampleIntervalUs,
                        info.pid == 0 ? ParallelismTally::kReorderTicks : 64);
                    tally_->setTickSink([this](uint64_t t, const TickCounts& c) {
                        const uint64_t offset = t > originUs_ ? t - originUs_ : 0;
                        size_t index = offset / bucketUs_;
                        while (index >= options_.maxBuckets) {
                            halveResolution();
                            index = offset / bucketUs_;
                        }
                        if (parallel_.size() <= index) parallel_.resize(index + 1);
                        parallel_[index].add(c);
                    });
                });
}

// The source's names arrive on the sampler's thread, which never waits for a snapshot
// being copied: a name that finds the lock taken is set with a later batch.
void LiveTimeline::nameThread(uint64_t threadId, const std::string& name) {
    pendingNames_[threadId] = name;
    lock_.tryWrite([this] { applyNames(); });
}

void LiveTimeline::addMarker(uint64_t timestampUs, const std::string& text) {
    if (marks_.size() + pendingMarks_.size() >= kMaxMarks) return;
    pendingMarks_.push_back({timestampUs, text});
    lock_.tryWrite([this] { applyNames(); });
}

void LiveTimeline::addCounters(const ProcessCounters& reading) {
    if (pendingCounters_.size() < CounterSeries::kMaxReadings) pendingCounters_.push_back(reading);
    lock_.tryWrite([this] { applyNames(); });
}

void LiveTimeline::applyNames() {
    for (TimelineMark& m : pendingMarks_)
        marks_.push_back(std::move(m));
    pendingMarks_.clear();
    for (const ProcessCounters& c : pendingCounters_)
        counters_.add(c);
    pendingCounters_.clear();
    for (auto& [id, name] : pendingNames_) {
        if (auto thread = threadIndex_.find(id); thread != threadIndex_.end())
            threads_[thread->second].name = std::move(name);
        else if (names_.size() < options_.maxThreads * 4)
            names_[id] = std::move(name); // named before its first sample
    }
    pendingNames_.clear();
}

// The remote reader marks garbage collection with a synthetic "<GC>" frame.
bool LiveTimeline::isGcFrame(FrameId id) {
    if (!registry_ || !registry_->has(id)) return false;
    int8_t& cached = gcFrameCache_.cover(id, -1);
    if (cached < 0) cached = registry_->string(registry_->frame(id).funcname) == "<GC>" ? 1 : 0;
    return cached == 1;
}

// A wait leaf (--wait-reasons) names what the thread waits on: "<read TCP 10.0.0.5:5432>"
// is labelled "read TCP 10.0.0.5:5432". With the lock held (waitLabels_ is read by snapshots).
uint32_t LiveTimeline::waitLabelOf(FrameId leaf) {
    if (!registry_ || !registry_->has(leaf)) return 0;
    int32_t& cached = waitLabelCache_.cover(leaf, -1);
    if (cached >= 0) return uint32_t(cached);
    const FrameInfo& f = registry_->frame(leaf);
    const std::string_view label =
        waitLabelOfFrame(registry_->string(f.filename), registry_->string(f.funcname));
    cached = 0;
    if (!label.empty() && waitLabels_.size() < kMaxWaitLabels) {
        cached = int32_t(waitLabels_.size());
        waitLabels_.emplace_back(label);
    }
    return uint32_t(cached);
}

TimelineBucket LiveTimeline::classify(const SampleBatch& batch) {
    TimelineBucket sample;
    sample.samples = 1;
    sample.hasGil = (batch.status & ThreadStatus::HasGil) ? 1 : 0;
    sample.gilRequested = (batch.status & ThreadStatus::GilRequested) ? 1 : 0;
    sample.onCpu = (batch.status & ThreadStatus::OnCpu) ? 1 : 0;
    sample.gc = std::any_of(batch.frames.begin(), batch.frames.end(),
                            [this](FrameId f) { return isGcFrame(f); })
                    ? 1
                    : 0;
    sample.exception = (batch.status & ThreadStatus::HasException) ? 1 : 0;
    sample.states[size_t(trackStateOf(batch.status))] = 1;
    switch (waitKindOf(waitReasonOf(batch.status))) {
    case WaitKind::Lock:
        sample.lockWait = 1;
        break;
    case WaitKind::Io:
        sample.ioWait = 1;
        break;
    case WaitKind::Poll:
    case WaitKind::Sleep:
        sample.sleepPoll = 1;
        break;
    case WaitKind::None:
    case WaitKind::Other:
        break;
    }
    if (!batch.frames.empty() && waitReasonOf(batch.status) != WaitReason::None)
        sample.waitLabel = waitLabelOf(batch.frames.front());
    return sample;
}

void LiveTimeline::addBatch(const SampleBatch& batch) {
    if (batch.timestampsUs.empty()) return;
    // The sampler's thread: never waits for a snapshot being copied.
    lock_.add(batch, [this](const SampleBatch& b) { apply(b); });
    if (pending()) lock_.tryWrite([this] { applyNames(); });
}

// With the lock held. Every timestamp of a batch shares its stack: classified once.
void LiveTimeline::apply(const SampleBatch& batch) {
    const TimelineBucket sample = classify(batch);
    if (!started_) {
        started_ = true;
        originUs_ = batch.timestampsUs.front();
    }
    samples_ += batch.timestampsUs.size();
    if (tally_) {
        const uint8_t status = compactStatus(batch.status);
        for (uint64_t ts : batch.timestampsUs)
            tally_->add(ts, status, ThreadIndex{0}, StackId{0});
    }
    auto it = threadIndex_.find(batch.threadId);
    if (it == threadIndex_.end()) {
        if (threads_.size() >= options_.maxThreads) return;
        // A new thread goes last: the tracks keep the order they were first seen in.
        it = threadIndex_.emplace(batch.threadId, threads_.size()).first;
        threads_.emplace_back().threadId = batch.threadId;
        threads_.back().firstUs = batch.timestampsUs.front();
        if (auto named = names_.find(batch.threadId); named != names_.end()) {
            threads_.back().name = std::move(named->second);
            names_.erase(named);
        }
    }
    ThreadTimeline& thread = threads_[it->second];
    if (batch.status & ThreadStatus::MainThread) thread.mainThread = true;
    for (uint64_t ts : batch.timestampsUs)
        addSample(thread, ts, sample);
}

void LiveTimeline::addSample(ThreadTimeline& thread, uint64_t timestampUs,
                             const TimelineBucket& sample) {
    // Replayed files can start slightly before the first batch's timestamp; clamp.
    const uint64_t offset = timestampUs > originUs_ ? timestampUs - originUs_ : 0;
    lastUs_ = std::max(lastUs_, timestampUs);
    size_t index = offset / bucketUs_;
    while (index >= options_.maxBuckets) {
        halveResolution();
        index = offset / bucketUs_;
    }
    if (thread.buckets.size() <= index) thread.buckets.resize(index + 1);
    thread.buckets[index].merge(sample);
    ++thread.samples;
}

namespace {

// Merges neighbouring pairs: bucket i becomes buckets 2i and 2i + 1.
template <typename Bucket>
void mergePairs(std::vector<Bucket>& b) {
    const size_t half = (b.size() + 1) / 2;
    for (size_t i = 0; i < half; ++i) {
        Bucket merged = b[2 * i];
        if (2 * i + 1 < b.size()) merged.merge(b[2 * i + 1]);
        b[i] = merged;
    }
    b.resize(half);
}

} // namespace

// Merges bucket pairs in every thread (and the process's parallelism) so all keep the
// same bucket width.
void LiveTimeline::halveResolution() {
    for (ThreadTimeline& thread : threads_)
        mergePairs(thread.buckets);
    mergePairs(parallel_);
    bucketUs_ *= 2;
}

void LiveTimeline::finish(const RecordingSummary& summary) {
    (void)summary;
    lock_.drain([this](const SampleBatch& b) { apply(b); },
                [this] {
                    applyNames();
                    if (tally_) tally_->finish();
                    finished_ = true;
                });
}

TimelineSnapshot LiveTimeline::snapshot() const {
    TimelineSnapshot s;
    lock_.read([&] { copyTo(s); });
    std::stable_partition(s.threads.begin(), s.threads.end(),
                          [](const ThreadTimeline& t) { return t.mainThread; });
    return s;
}

void LiveTimeline::copyTo(TimelineSnapshot& s) const {
    s.originUs = originUs_;
    s.bucketUs = bucketUs_;
    s.spanUs = started_ ? lastUs_ - originUs_ : 0;
    s.samples = samples_;
    s.finished = finished_;
    s.freeThreaded = freeThreaded_;
    s.cpus = cpus_;
    s.parallel = parallel_;
    s.waitLabels = waitLabels_;
    s.marks = marks_;
    s.counters = counters_;
    s.threads.reserve(threads_.size());
    s.threads = threads_;
    std::stable_sort(s.threads.begin(), s.threads.end(),
                     [](const ThreadTimeline& a, const ThreadTimeline& b) {
                         if (a.firstUs != b.firstUs) return a.firstUs < b.firstUs;
                         if (a.mainThread != b.mainThread) return a.mainThread;
                         return a.threadId < b.threadId;
                     });
}

} // namespace gilscope
