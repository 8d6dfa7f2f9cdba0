#include "core/analysis/profile_model.h"

#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"

#include <algorithm>
#include <array>

namespace gilscope {

namespace {

// Membership in a sorted vector for lookups that mostly come in increasing order:
// gallops forward from the last hit instead of a binary search over everything.
class TimeCursor {
public:
    explicit TimeCursor(const std::vector<uint64_t>& sorted) : v_(sorted) {}
    bool contains(uint64_t t) {
        const size_t n = v_.size();
        size_t lo = 0, hi = n;
        if (pos_ < n && t >= v_[pos_]) {
            lo = pos_;
            size_t step = 1;
            hi = pos_ + 1;
            while (hi < n && v_[hi] < t) {
                lo = hi;
                hi = std::min(n, hi + step);
                step *= 2;
            }
            hi = std::min(n, hi + 1);
        }
        pos_ = static_cast<size_t>(std::lower_bound(v_.begin() + static_cast<long>(lo),
                                                    v_.begin() + static_cast<long>(hi), t) -
                                   v_.begin());
        return pos_ < n && v_[pos_] == t;
    }

private:
    const std::vector<uint64_t>& v_;
    size_t pos_ = 0;
};

} // namespace

ProfileModel::ProfileModel() = default;
ProfileModel::~ProfileModel() = default;

void ProfileModel::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    lock_.drain([this](const SampleBatch& b) { apply(b); },
                [&] {
                    interner_.setRegistry(&registry);
                    intervalUs_ = info.sampleIntervalUs;
                    recordedMode_ = info.mode;
                    pythonMinor_ = info.pythonMajor == 3 ? info.pythonMinor : 0;
                    freeThreaded_ = info.freeThreaded;
                    cpus_ = info.cpus;
                });
}

ProfileModel::ThreadState* ProfileModel::threadFor(uint64_t tid, ThreadIndex& index) {
    auto it = threadIndex_.find(tid);
    if (it == threadIndex_.end()) {
        if (threads_.size() == kMaxThreads) return nullptr;
        it = threadIndex_.emplace(tid, ThreadIndex::fromIndex(threads_.size())).first;
        threads_.emplace_back().threadId = tid;
    }
    index = it->second;
    return &threads_[index.index()];
}

// On the sampler's thread, which never waits for a query that is copying: a name that
// finds the lock taken is set by a later batch (pendingNames_ is the producer's own).
void ProfileModel::nameThread(uint64_t threadId, const std::string& name) {
    pendingNames_[threadId] = name;
    lock_.tryWrite([this] { applyNames(); });
}

void ProfileModel::applyNames() {
    constexpr size_t kMaxNamedThreads = 1 << 15; // a churning target cannot grow it further
    for (auto& [id, name] : pendingNames_)
        if (threadNames_.size() < kMaxNamedThreads || threadNames_.count(id))
            threadNames_[id] = std::move(name);
    pendingNames_.clear();
}

void ProfileModel::addBatch(const SampleBatch& batch) {
    if (batch.timestampsUs.empty()) return;
    // The sampler's thread: never waits for a query that is copying.
    lock_.add(batch, [this](const SampleBatch& b) { apply(b); });
    if (!pendingNames_.empty()) lock_.tryWrite([this] { applyNames(); });
}

void ProfileModel::apply(const SampleBatch& batch) {
    if (finished_) return; // nothing comes after the end; the interner is frozen
    if (!started_) {
        started_ = true;
        originUs_ = batch.timestampsUs.front();
    }
    ThreadIndex index;
    ThreadState* state = threadFor(batch.threadId, index);
    if (!state) {
        overflowSamples_ += batch.timestampsUs.size();
        return;
    }
    ThreadState& t = *state;
    if (batch.status & ThreadStatus::MainThread) t.mainThread = true;
    const StackId stack = interner_.intern(t.path, batch.frames);
    const uint8_t status = compactStatus(batch.status); // with the wait's kind
    if (stack != t.lastStack || status != t.lastStatus || t.lastCount == UINT32_MAX) {
        const uint64_t key =
            (uint64_t{stack.value()} << 24) | (uint64_t{index.value()} << 8) | status;
        const auto [slot, added] =
            countIndex_.tryEmplace(key, static_cast<uint32_t>(countKeys_.size()));
        if (added) {
            countKeys_.push_back(key);
            countValues_.push_back(0);
        }
        t.lastCount = slot;
        t.lastStack = stack;
        t.lastStatus = status;
    }
    const uint64_t n = batch.timestampsUs.size();
    countValues_[t.lastCount] += n;
    t.samples += n;
    samples_ += n;
    SampleRecord r;
    r.node = stack;
    r.status = status;
    r.thread = index;
    for (uint64_t ts : batch.timestampsUs) {
        // Replayed files can start slightly before the first batch's time; clamp.
        r.setTime(ts > originUs_ ? ts - originUs_ : 0);
        lastUs_ = std::max(lastUs_, ts);
        store_.append(r);
    }
}

void ProfileModel::finish(const RecordingSummary& summary) {
    (void)summary;
    lock_.drain([this](const SampleBatch& b) { apply(b); },
                [this] {
                    applyNames();
                    finished_ = true;
                    interner_.freeze(); // no stack comes after the end
                    for (ThreadState& t : threads_)
                        t.path = {};
                });
}

std::shared_ptr<const CallNodeChildren> ProfileModel::callChildren(const CallNodes& calls) const {
    // Built outside the model's lock, once per table: a finished recording's never changes.
    std::lock_guard lock(callChildrenMutex_);
    if (!callChildren_ || callChildren_->size() != calls.size())
        callChildren_ = CallNodeChildren::build(calls);
    return callChildren_;
}

uint64_t ProfileModel::sampleCount() const {
    return lock_.read([this] { return samples_; });
}

Result<std::shared_ptr<const ProfileSnapshot>>
ProfileModel::query(const ProfileFilter& filter, const CancelToken* cancel) const {
    auto snap = std::make_shared<ProfileSnapshot>();
    snap->filter = filter;
    const StateFilter state = filter.state;
    const bool needScan = filter.hasRange || isContention(state);
    std::array<bool, 256> statusOk{}, waits{};
    for (uint32_t s = 0; s < 256; ++s) {
        statusOk[s] = statusPasses(state, expandStatus(uint8_t(s)));
        waits[s] = contentionWaits(state, expandStatus(uint8_t(s)));
    }
    std::vector<uint8_t> threadOk;
    SampleStore::View view;
    const bool counted = lock_.read([&] {
        snap->originUs = originUs_;
        snap->lastUs = lastUs_;
        snap->intervalUs = intervalUs_;
        snap->recordedMode = recordedMode_;
        snap->pythonMinor = pythonMinor_;
        snap->freeThreaded = freeThreaded_;
        snap->recordedSamples = samples_;
        snap->finished = finished_;
        snap->notKept = store_.spillProblem();
        if (overflowSamples_ > 0)
            snap->notKept += (snap->notKept.empty() ? "" : "; ") +
                             std::to_string(overflowSamples_) +
                             " samples of threads past the 65,536th were not kept";
        snap->nodes = interner_.nodes();
        snap->callNodeOf = interner_.callNodeOf();
        snap->callNodes = interner_.callNodes();
        snap->functions = interner_.functions();
        snap->lines = interner_.lines();
        snap->threads.reserve(threads_.size());
        threadOk.assign(threads_.size(), filter.threads.empty() ? 1 : 0);
        for (size_t i = 0; i < threads_.size(); ++i) {
            const ThreadState& t = threads_[i];
            const auto named = threadNames_.find(t.threadId);
            snap->threads.push_back({t.threadId, t.mainThread, t.samples,
                                     named != threadNames_.end() ? named->second : std::string()});
            if (!filter.threads.empty() && std::find(filter.threads.begin(), filter.threads.end(),
                                                     t.threadId) != filter.threads.end())
                threadOk[i] = 1;
        }
        snap->selfCounts.assign(snap->nodes.size(), 0);
        if (!needScan) {
            for (size_t i = 0; i < countKeys_.size(); ++i) {
                const uint64_t key = countKeys_[i], count = countValues_[i];
                const auto node = static_cast<uint32_t>(key >> 24);
                if (!threadOk[(key >> 8) & 0xffff] || !statusOk[key & 0xff]) continue;
                if (state == StateFilter::Gc && !(snap->nodes[node].flags & StackNode::kGc))
                    continue;
                snap->selfCounts[node] += count;
                snap->matchedSamples += count;
            }
            return true;
        }
        view = store_.view();
        return false;
    });
    snap->callChildren = callChildren(snap->callNodes);
    if (counted) return std::shared_ptr<const ProfileSnapshot>(std::move(snap));

    // Record times count from the origin; the range is [startUs, endUs) absolute.
    uint64_t t0 = 0, t1 = UINT64_MAX;
    if (filter.hasRange) {
        t0 = filter.startUs > snap->originUs ? filter.startUs - snap->originUs : 0;
        if (filter.endUs <= snap->originUs || filter.endUs <= filter.startUs)
            return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
        t1 = filter.endUs - snap->originUs - 1;
    }
    uint64_t* counts = snap->selfCounts.data();
    const StackNodes& nodes = snap->nodes;
    uint64_t matched = 0;
    Status st;
    if (!isContention(state)) {
        const bool gc = state == StateFilter::Gc;
        st = view.scan(
            t0, t1,
            [&](std::span<const SampleRecord> records) {
                for (const SampleRecord& r : records) {
                    const uint64_t t = r.time();
                    if (t < t0 || t > t1 || !threadOk[r.thread.index()] || !statusOk[r.status])
                        continue;
                    if (gc && !(nodes[r.node.index()].flags & StackNode::kGc)) continue;
                    ++counts[r.node.index()];
                    ++matched;
                }
            },
            cancel);
    } else {
        // Ticks share one timestamp across threads: first the times at which some thread
        // waited, then the samples of those who ran (held the GIL, were on a CPU) then.
        std::vector<uint64_t> times;
        st = view.scan(
            t0, t1,
            [&](std::span<const SampleRecord> records) {
                for (const SampleRecord& r : records) {
                    const uint64_t t = r.time();
                    if (t >= t0 && t <= t1 && waits[r.status] &&
                        (times.empty() || times.back() != t))
                        times.push_back(t);
                }
            },
            cancel);
        if (!st) return st.error();
        // A live recording is already in time order; a replay nearly so.
        if (!std::is_sorted(times.begin(), times.end())) std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        snap->contendedTicks = times.size();
        TimeCursor contended(times);
        if (!times.empty())
            st = view.scan(
                times.front(), times.back(),
                [&](std::span<const SampleRecord> records) {
                    for (const SampleRecord& r : records) {
                        if (!statusOk[r.status] || !threadOk[r.thread.index()]) continue;
                        if (!contended.contains(r.time())) continue;
                        ++counts[r.node.index()];
                        ++matched;
                    }
                },
                cancel);
    }
    if (!st) return st.error();
    snap->matchedSamples = matched;
    return std::shared_ptr<const ProfileSnapshot>(std::move(snap));
}

Result<ProfileModel::Parallelism> ProfileModel::parallelism(const ProfileFilter& filter,
                                                            const CancelToken* cancel) const {
    Parallelism out;
    uint64_t originUs = 0;
    uint32_t cpus = 0;
    uint64_t intervalUs = 0;
    std::vector<uint8_t> threadOk;
    SampleStore::View view;
    lock_.read([&] {
        originUs = originUs_;
        cpus = cpus_;
        intervalUs = intervalUs_;
        out.freeThreaded = freeThreaded_;
        threadOk.assign(threads_.size(), filter.threads.empty() ? 1 : 0);
        for (size_t i = 0; i < threads_.size() && !filter.threads.empty(); ++i)
            threadOk[i] = std::find(filter.threads.begin(), filter.threads.end(),
                                    threads_[i].threadId) != filter.threads.end();
        view = store_.view();
    });
    uint64_t t0 = 0, t1 = UINT64_MAX;
    if (filter.hasRange) {
        t0 = filter.startUs > originUs ? filter.startUs - originUs : 0;
        if (filter.endUs <= originUs || filter.endUs <= filter.startUs) return out;
        t1 = filter.endUs - originUs - 1;
    }
    ParallelismTally tally(cpus, out.freeThreaded, intervalUs);
    const Status st = view.scan(
        t0, t1,
        [&](std::span<const SampleRecord> records) {
            for (const SampleRecord& r : records) {
                const uint64_t t = r.time();
                if (t < t0 || t > t1 || !threadOk[r.thread.index()]) continue;
                tally.add(originUs + t, r.status, r.thread, r.node);
            }
        },
        cancel);
    if (!st) return st.error();
    tally.finish();
    out.summary = tally.summary();
    out.pauses = tally.pauses();
    return out;
}

} // namespace gilscope
