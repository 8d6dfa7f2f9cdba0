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

std::vector<uint16_t> nodeDepths(const std::vector<StackNode>& nodes) {
    std::vector<uint16_t> depth(nodes.size(), 0);
    for (size_t n = 1; n < nodes.size(); ++n)
        depth[n] = static_cast<uint16_t>(std::min<uint32_t>(depth[nodes[n].parent] + 1u, 65535u));
    return depth;
}

void buildStackChartLane(StackChartLane& lane, std::span<const ChartSample> samples,
                         const std::vector<StackNode>& nodes, const std::vector<uint16_t>& depthOf,
                         uint64_t t0, uint64_t t1, uint32_t width, uint64_t maxCoverUs) {
    lane.leaf.assign(width, StackChartLane::kNoLeaf);
    lane.state.assign(width, ColumnState::None);
    lane.depths.clear();
    if (width == 0 || t1 <= t0) return;
    const Columns cols{t0, t1 - t0, width};
    ColumnVote vote;
    uint32_t current = UINT32_MAX; // the column being voted on
    auto close = [&] {
        if (current != UINT32_MAX && !vote.empty())
            vote.decide(lane.leaf[current], lane.state[current]);
    };
    for (size_t i = 0; i < samples.size(); ++i) {
        const ChartSample& s = samples[i];
        // A sample covers its time up to the next one; the last, or one before a gap
        // (a thread the mode skipped, a stall), covers half the cap: one interval.
        const uint64_t gap = i + 1 < samples.size() ? samples[i + 1].time - s.time : maxCoverUs / 2;
        uint64_t a = s.time, b = s.time + std::min(gap, maxCoverUs);
        if (b <= t0 || a >= t1 || b <= a) continue;
        a = std::max(a, t0);
        b = std::min(b, t1);
        const uint32_t xa = cols.at(a), xb = cols.at(b - 1);
        const ColumnState state = columnStateOf(s.status);
        for (uint32_t x = xa; x <= xb; ++x) {
            if (x > xa && x < xb) { // the sample alone covers this column
                close();
                current = UINT32_MAX;
                lane.leaf[x] = s.node;
                lane.state[x] = state;
                continue;
            }
            if (x != current) {
                close();
                current = x;
            }
            const uint64_t lo = std::max(a, cols.start(x)), hi = std::min(b, cols.start(x + 1));
            vote.add(s.node, std::max<uint64_t>(hi > lo ? hi - lo : 0, 1), state);
        }
    }
    close();

    // Boxes: per depth, runs of columns whose stacks share the node there (a node is a
    // whole prefix, so equal nodes also mean equal callers).
    std::vector<uint32_t> path;
    for (uint32_t x = 0; x < width; ++x) {
        const uint32_t leaf = lane.leaf[x];
        if (leaf == StackChartLane::kNoLeaf || leaf >= nodes.size()) continue;
        path.resize(depthOf[leaf]);
        uint32_t n = leaf;
        for (size_t d = path.size(); d-- > 0; n = nodes[n].parent)
            path[d] = n;
        if (lane.depths.size() < path.size()) lane.depths.resize(path.size());
        for (size_t d = 0; d < path.size(); ++d) {
            std::vector<StackChartBox>& row = lane.depths[d];
            if (!row.empty() && row.back().x1 == x && row.back().node == path[d])
                row.back().x1 = x + 1;
            else
                row.push_back({x, x + 1, path[d]});
        }
    }
}

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
    {
        std::lock_guard lock(mutex_);
        chart->originUs = originUs_;
        chart->intervalUs = intervalUs_;
        if (!started_ || chart->widthPx == 0 || chart->endUs <= chart->startUs)
            return std::shared_ptr<const StackChart>(std::move(chart));
        chart->nodes = interner_.nodes();
        chart->functions = interner_.functions();
        chart->lines = interner_.lines();
        for (const ThreadState& t : threads_) {
            threadIds.push_back(t.threadId);
            mainThread.push_back(t.mainThread);
        }
        view = store_.view();
    }
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
    // Samples from a cover before the window (they reach into it) to one after it (the
    // last one's cover ends at the next sample).
    std::vector<std::vector<ChartSample>> perThread(threadIds.size());
    std::vector<uint64_t> inWindow(threadIds.size(), 0), active(threadIds.size(), 0);
    const uint64_t from = t0 > origin + maxCover ? t0 - origin - maxCover : 0,
                   to = t1 - origin + maxCover;
    const Status st = view.scan(
        from, to,
        [&](std::span<const SampleRecord> records) {
            for (const SampleRecord& r : records) {
                if (r.time() < from || r.time() > to || !wanted[r.thread]) continue;
                const uint64_t t = r.time() + origin;
                perThread[r.thread].push_back({t, r.node, r.status});
                if (t >= t0 && t < t1) {
                    ++inWindow[r.thread];
                    if (r.status & (ThreadStatus::OnCpu | ThreadStatus::HasGil)) ++active[r.thread];
                }
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
    const std::vector<uint16_t> depthOf = nodeDepths(chart->nodes);
    for (size_t i : order) {
        if (cancel && cancel->cancelled()) return makeError(ErrorKind::Cancelled, "cancelled");
        std::vector<ChartSample>& samples = perThread[i];
        // A live recording is in time order; a replay nearly so.
        auto earlier = [](const ChartSample& a, const ChartSample& b) { return a.time < b.time; };
        if (!std::is_sorted(samples.begin(), samples.end(), earlier))
            std::stable_sort(samples.begin(), samples.end(), earlier);
        StackChartLane& lane = chart->lanes.emplace_back();
        lane.threadId = threadIds[i];
        lane.mainThread = mainThread[i];
        lane.samples = inWindow[i];
        chart->samplesInView += inWindow[i];
        buildStackChartLane(lane, samples, chart->nodes, depthOf, t0, t1, chart->widthPx, maxCover);
        std::vector<ChartSample>().swap(samples);
    }
    return std::shared_ptr<const StackChart>(std::move(chart));
}

} // namespace gilscope
