#include "core/analysis/stack_chart.h"

#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"

#include <algorithm>
#include <array>

namespace gilscope {

namespace {

constexpr uint32_t kMaxWidthPx = 16384;

// Column boundaries of [t0, t1) on width columns (span >= width); integer maths so that
// a time and the column drawn for it agree exactly between the builder and the views:
// at(start(x)) == x, as a column starts at the first whole µs in it.
struct Columns {
    uint64_t t0, span;
    uint32_t width;
    uint64_t start(uint64_t x) const { return t0 + (x * span + width - 1) / width; }
    uint32_t at(uint64_t t) const {
        if (t <= t0) return 0;
        return static_cast<uint32_t>(std::min<uint64_t>((t - t0) * width / span, width - 1));
    }
};

// The stacks competing for one column, weighted by the time each covers in it.
class ColumnVote {
public:
    void add(uint32_t node, uint64_t weight, ColumnState state) {
        if (!entries_.empty() && entries_.back().node == node)
            entries_.back().weight += weight;
        else
            entries_.push_back({node, weight, static_cast<uint32_t>(entries_.size())});
        stateWeight_[static_cast<size_t>(state)] += weight;
    }
    bool empty() const { return entries_.empty(); }
    // The stack covering most of the column's time (the earliest on a tie), and its state.
    void decide(uint32_t& leaf, ColumnState& state) {
        std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
            return a.node != b.node ? a.node < b.node : a.order < b.order;
        });
        uint64_t best = 0;
        uint32_t bestOrder = UINT32_MAX;
        for (size_t i = 0; i < entries_.size();) {
            const Entry& first = entries_[i];
            uint64_t w = 0;
            for (; i < entries_.size() && entries_[i].node == first.node; ++i)
                w += entries_[i].weight;
            if (w > best || (w == best && first.order < bestOrder)) {
                best = w;
                bestOrder = first.order;
                leaf = first.node;
            }
        }
        size_t s = 1;
        for (size_t k = 2; k < stateWeight_.size(); ++k)
            if (stateWeight_[k] > stateWeight_[s]) s = k;
        state = static_cast<ColumnState>(s);
        entries_.clear();
        stateWeight_.fill(0);
    }

private:
    struct Entry {
        uint32_t node;
        uint64_t weight;
        uint32_t order;
    };
    std::vector<Entry> entries_;
    std::array<uint64_t, 6> stateWeight_{};
};

} // namespace

ColumnState columnStateOf(uint32_t status) {
    if (status & ThreadStatus::GilRequested) return ColumnState::WaitsForGil;
    if (status & ThreadStatus::HasGil) return ColumnState::HoldsGil;
    if (status & ThreadStatus::OnCpu) return ColumnState::OnCpu;
    if (status & ThreadStatus::Unknown) return ColumnState::Unknown;
    return ColumnState::OffCpu;
}

uint32_t StackChart::columnAt(uint64_t timeUs) const {
    if (widthPx == 0 || endUs <= startUs) return 0;
    return Columns{startUs, endUs - startUs, widthPx}.at(timeUs);
}

uint64_t StackChart::columnStartUs(uint32_t x) const {
    if (widthPx == 0 || endUs <= startUs) return startUs;
    return Columns{startUs, endUs - startUs, widthPx}.start(x);
}

namespace {

std::vector<uint16_t> nodeDepths(const StackNodes& nodes) {
    std::vector<uint16_t> depth(nodes.size(), 0);
    for (size_t n = 1; n < nodes.size(); ++n)
        depth[n] = static_cast<uint16_t>(std::min<uint32_t>(depth[nodes[n].parent] + 1u, 65535u));
    return depth;
}

// Builds one lane from its thread's samples as they stream by, in time order, keeping
// only the previous sample and the column being voted on: a whole recording's window
// costs no memory per sample. A sample covers its time up to the next one, at most
// maxCover; the last one, or one before a gap (a thread the mode skipped, a stall),
// half that: one interval. A sample older than the one before it (a replayed file's
// disorder) covers nothing.
class LaneBuilder {
public:
    LaneBuilder(StackChartLane& lane, const Columns& cols, uint64_t maxCover)
        : lane_(lane), cols_(cols), maxCover_(maxCover) {
        lane_.leaf.assign(cols.width, StackChartLane::kNoLeaf);
        lane_.state.assign(cols.width, ColumnState::None);
    }

    void add(uint64_t time, uint32_t node, uint8_t status) {
        if (hasPrev_) {
            if (time < prevTime_) return;
            cover(prevTime_ + std::min(time - prevTime_, maxCover_));
        }
        hasPrev_ = true;
        prevTime_ = time;
        prevNode_ = node;
        prevStatus_ = status;
    }

    // The last sample's cover: every column's stack is decided.
    void settle() {
        if (hasPrev_) cover(prevTime_ + maxCover_ / 2);
        close();
    }

    // Per depth, runs of columns whose stacks share the node there (a node is a whole
    // prefix, so equal nodes also mean equal callers).
    void buildBoxes(const StackNodes& nodes, const std::vector<uint16_t>& depthOf) {
        std::vector<uint32_t> path;
        for (uint32_t x = 0; x < cols_.width; ++x) {
            const uint32_t leaf = lane_.leaf[x];
            if (leaf == StackChartLane::kNoLeaf || leaf >= nodes.size()) continue;
            path.resize(depthOf[leaf]);
            uint32_t n = leaf;
            for (size_t d = path.size(); d-- > 0; n = nodes[n].parent)
                path[d] = n;
            if (lane_.depths.size() < path.size()) lane_.depths.resize(path.size());
            for (size_t d = 0; d < path.size(); ++d) {
                std::vector<StackChartBox>& row = lane_.depths[d];
                if (!row.empty() && row.back().x1 == x && row.back().node == path[d])
                    row.back().x1 = x + 1;
                else
                    row.push_back({x, x + 1, path[d]});
            }
        }
    }

private:
    void close() {
        if (current_ != UINT32_MAX && !vote_.empty())
            vote_.decide(lane_.leaf[current_], lane_.state[current_]);
    }

    // The previous sample covers [prevTime_, end).
    void cover(uint64_t end) {
        const uint64_t t1 = cols_.t0 + cols_.span;
        uint64_t a = std::max(prevTime_, cols_.t0);
        // Columns already decided stay so (only a disordered sample reaches back).
        if (current_ != UINT32_MAX) a = std::max(a, cols_.start(current_));
        const uint64_t b = std::min(end, t1);
        if (b <= a) return;
        const uint32_t xa = cols_.at(a), xb = cols_.at(b - 1);
        const ColumnState state = columnStateOf(prevStatus_);
        for (uint32_t x = xa; x <= xb; ++x) {
            if (x > xa && x < xb) { // the sample alone covers this column
                close();
                current_ = UINT32_MAX;
                lane_.leaf[x] = prevNode_;
                lane_.state[x] = state;
                continue;
            }
            if (x != current_) {
                close();
                current_ = x;
            }
            const uint64_t lo = std::max(a, cols_.start(x)), hi = std::min(b, cols_.start(x + 1));
            vote_.add(prevNode_, std::max<uint64_t>(hi > lo ? hi - lo : 0, 1), state);
        }
    }

    StackChartLane& lane_;
    const Columns cols_;
    const uint64_t maxCover_;
    ColumnVote vote_;
    uint32_t current_ = UINT32_MAX; // the column being voted on
    bool hasPrev_ = false;
    uint64_t prevTime_ = 0;
    uint32_t prevNode_ = 0;
    uint8_t prevStatus_ = 0;
};

// The chart's column stacks as the views' transforms reshape them: the stacks drawn are
// made a snapshot of their own (one sample per column), transformed, and each column's
// leaf follows its node; a dropped stack leaves its column empty.
Status reshape(StackChart& chart, const TransformStack& transforms, const CancelToken* cancel) {
    TransformStack overTime;
    for (const CallTransform& t : transforms)
        if (t.kind != TransformKind::Invert) overTime.push_back(t);
    if (overTime.empty()) return {};
    auto drawn = std::make_shared<ProfileSnapshot>();
    drawn->nodes = std::move(chart.nodes);
    drawn->functions = std::move(chart.functions);
    drawn->lines = std::move(chart.lines);
    drawn->selfCounts.assign(drawn->nodes.size(), 0);
    for (const StackChartLane& lane : chart.lanes)
        for (uint32_t leaf : lane.leaf)
            if (leaf < drawn->nodes.size()) {
                ++drawn->selfCounts[leaf];
                ++drawn->matchedSamples;
            }
    auto mapped = applyTransformsMapped(std::move(drawn), overTime, cancel);
    if (!mapped) return makeError(ErrorKind::Cancelled, "cancelled");
    for (StackChartLane& lane : chart.lanes)
        for (size_t x = 0; x < lane.leaf.size(); ++x) {
            uint32_t& leaf = lane.leaf[x];
            if (leaf == StackChartLane::kNoLeaf) continue;
            leaf = leaf < mapped->nodeMap.size() ? mapped->nodeMap[leaf] : kDroppedNode;
            if (leaf == kDroppedNode) {
                leaf = StackChartLane::kNoLeaf;
                lane.state[x] = ColumnState::None;
            }
        }
    const ProfileSnapshot& shown = *mapped->snapshot;
    chart.nodes = shown.nodes;
    chart.functions = shown.functions;
    chart.lines = shown.lines;
    return {};
}

} // namespace

Result<std::shared_ptr<const StackChart>>
ProfileModel::stackChart(const StackChartRequest& request, const CancelToken* cancel) const {
    auto chart = std::make_shared<StackChart>();
    chart->startUs = request.startUs;
    chart->endUs = std::max(request.endUs, request.startUs);
    // No column narrower than a µs, the clock's grain.
    chart->widthPx = static_cast<uint32_t>(
        std::min<uint64_t>(std::min(request.widthPx, kMaxWidthPx), chart->endUs - chart->startUs));
    std::vector<uint64_t> threadIds;
    std::vector<bool> mainThread;
    SampleStore::View view;
    const bool any = lock_.read([&] {
        chart->originUs = originUs_;
        chart->intervalUs = intervalUs_;
        if (!started_ || chart->widthPx == 0 || chart->endUs <= chart->startUs) return false;
        chart->nodes = interner_.nodes();
        chart->functions = interner_.functions();
        chart->lines = interner_.lines();
        for (const ThreadState& t : threads_) {
            threadIds.push_back(t.threadId);
            mainThread.push_back(t.mainThread);
        }
        view = store_.view();
        return true;
    });
    if (!any) return std::shared_ptr<const StackChart>(std::move(chart));
    // Record times count from the origin; the chart's columns are in absolute time.
    const uint64_t origin = chart->originUs;
    const uint64_t t0 = chart->startUs, t1 = chart->endUs;
    if (t1 <= origin) return std::shared_ptr<const StackChart>(std::move(chart));
    const uint64_t maxCover = 2 * std::max<uint64_t>(chart->intervalUs, 1);

    std::vector<uint8_t> wanted(threadIds.size(), request.threads.empty() ? 1 : 0);
    for (size_t i = 0; i < threadIds.size(); ++i)
        if (std::find(request.threads.begin(), request.threads.end(), threadIds[i]) !=
            request.threads.end())
            wanted[i] = 1;
    // Record times count from the origin. Samples from a cover before the window (they
    // reach into it) to one after it (the last one's cover ends at the next sample).
    const uint64_t from = t0 > origin + maxCover ? t0 - origin - maxCover : 0,
                   to = t1 - origin + maxCover;
    const uint64_t inFrom = t0 > origin ? t0 - origin : 0, inTo = t1 - origin;

    // First pass: which threads have samples in the window, and how busy they are.
    std::vector<uint64_t> inWindow(threadIds.size(), 0), active(threadIds.size(), 0);
    Status st = view.scan(
        inFrom, inTo - 1,
        [&](std::span<const SampleRecord> records) {
            for (const SampleRecord& r : records) {
                const uint64_t t = r.time();
                if (t < inFrom || t >= inTo || !wanted[r.thread.index()]) continue;
                ++inWindow[r.thread.index()];
                if (r.status & (ThreadStatus::OnCpu | ThreadStatus::HasGil))
                    ++active[r.thread.index()];
            }
        },
        cancel);
    if (!st) return st.error();

    // Lanes: busiest first (on CPU or holding the GIL), then most samples.
    std::vector<size_t> order;
    for (size_t i = 0; i < threadIds.size(); ++i)
        if (inWindow[i]) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (active[a] != active[b]) return active[a] > active[b];
        if (inWindow[a] != inWindow[b]) return inWindow[a] > inWindow[b];
        return threadIds[a] < threadIds[b];
    });
    if (order.size() > request.maxLanes) {
        chart->lanesLeftOut = order.size() - request.maxLanes;
        order.resize(request.maxLanes);
    }
    if (order.empty()) return std::shared_ptr<const StackChart>(std::move(chart));

    // Second pass: the drawn lanes' samples stream through their builders.
    const Columns cols{t0, t1 - t0, chart->widthPx};
    chart->lanes.resize(order.size());
    std::vector<std::unique_ptr<LaneBuilder>> builders(threadIds.size());
    for (size_t k = 0; k < order.size(); ++k) {
        StackChartLane& lane = chart->lanes[k];
        lane.threadId = threadIds[order[k]];
        lane.mainThread = mainThread[order[k]];
        lane.samples = inWindow[order[k]];
        chart->samplesInView += lane.samples;
        builders[order[k]] = std::make_unique<LaneBuilder>(lane, cols, maxCover);
    }
    st = view.scan(
        from, to,
        [&](std::span<const SampleRecord> records) {
            for (const SampleRecord& r : records) {
                const uint64_t t = r.time();
                LaneBuilder* b = builders[r.thread.index()].get();
                if (b && t >= from && t <= to) b->add(t + origin, r.node.value(), r.status);
            }
        },
        cancel);
    if (!st) return st.error();
    for (size_t i : order)
        builders[i]->settle();
    chart->recordedFunctions = chart->functions.size();
    if (!request.transforms.empty())
        if (Status t = reshape(*chart, request.transforms, cancel); !t) return t.error();
    const std::vector<uint16_t> depthOf = nodeDepths(chart->nodes);
    for (size_t i : order)
        builders[i]->buildBoxes(chart->nodes, depthOf);
    return std::shared_ptr<const StackChart>(std::move(chart));
}

} // namespace gilscope
