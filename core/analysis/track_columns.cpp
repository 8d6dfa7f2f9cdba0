#include "core/analysis/track_columns.h"

#include "core/analysis/profile_model.h"
#include "core/sample/wait_reason.h"

#include <algorithm>
#include <cmath>

namespace gilscope {

namespace {

// What one thread's previous sample was, until its next one says how long it lasted.
struct Pending {
    bool any = false;
    uint64_t timeUs = 0; // from the model's origin
    TrackState state = TrackState::Idle;
    bool onCpu = false, exception = false, gc = false;
};

// Adds a sample's time [a, b) (from the origin) to the columns it covers.
void spread(std::vector<TrackColumn>& columns, const Pending& s, uint64_t a, uint64_t b,
            uint64_t t0, double usPerColumn) {
    const double from = double(a - t0), to = double(b - t0);
    const auto n = int64_t(columns.size());
    for (int64_t c = std::max<int64_t>(0, int64_t(from / usPerColumn));
         c < n && double(c) * usPerColumn < to; ++c) {
        const double lo = std::max(from, double(c) * usPerColumn);
        const double hi = std::min(to, double(c + 1) * usPerColumn);
        if (hi <= lo) continue;
        // Rounded per piece: a sample split over columns keeps its whole time.
        const auto us = uint32_t(std::lround(hi - lo));
        TrackColumn& col = columns[size_t(c)];
        col.state[size_t(s.state)] += us;
        if (s.onCpu) col.onCpu += us;
        if (s.exception) col.exception += us;
        if (s.gc) col.gc += us;
    }
}

} // namespace

Result<std::shared_ptr<const TrackColumns>>
ProfileModel::trackColumns(const TrackColumnsRequest& request, const CancelToken* cancel) const {
    auto out = std::make_shared<TrackColumns>();
    out->request = request;
    std::vector<uint64_t> threadIds;
    StackNodes nodes;
    SampleStore::View view;
    uint64_t origin = 0, interval = 0;
    const bool any = lock_.read([&] {
        out->samples = samples_;
        origin = originUs_;
        interval = std::max<uint64_t>(intervalUs_, 1);
        if (!started_ || request.columns <= 0 || request.endUs <= request.startUs) return false;
        for (const ThreadState& t : threads_)
            threadIds.push_back(t.threadId);
        nodes = interner_.nodes();
        view = store_.view();
        return true;
    });
    for (uint64_t id : threadIds)
        out->threads.push_back({id, std::vector<TrackColumn>(size_t(request.columns))});
    if (!any || request.endUs <= origin) return std::shared_ptr<const TrackColumns>(std::move(out));
    // From the origin: the window [t0, t1), and the samples that may reach into it.
    const uint64_t t0 = request.startUs > origin ? request.startUs - origin : 0;
    const uint64_t t1 = request.endUs - origin;
    const uint64_t maxCover = 2 * interval;
    const double usPerColumn = double(t1 - t0) / request.columns;
    std::vector<Pending> last(threadIds.size());
    const auto close = [&](size_t thread, uint64_t until) {
        const Pending& p = last[thread];
        if (!p.any) return;
        const uint64_t a = std::max(p.timeUs, t0);
        const uint64_t b = std::min({until, p.timeUs + maxCover, t1});
        if (b > a) spread(out->threads[thread].columns, p, a, b, t0, usPerColumn);
    };
    // To a cover past the window: a sample there ends the last one inside.
    Status st = view.scan(
        t0 > maxCover ? t0 - maxCover : 0, t1 + maxCover,
        [&](std::span<const SampleRecord> records) {
            for (const SampleRecord& r : records) {
                const uint64_t t = r.time();
                const size_t thread = r.thread.index();
                if (thread >= last.size() || t + maxCover < t0 || t > t1 + maxCover) continue;
                Pending& p = last[thread];
                if (p.any && t < p.timeUs) continue; // out of order: not drawn twice
                close(thread, t);
                if (t >= t1) {
                    p.any = false; // past the window: it only ended the one before
                    continue;
                }
                const uint32_t status = expandStatus(r.status);
                p.any = true;
                p.timeUs = t;
                p.state = trackStateOf(status);
                p.onCpu = status & ThreadStatus::OnCpu;
                p.exception = status & ThreadStatus::HasException;
                p.gc =
                    r.node.index() < nodes.size() && (nodes[r.node.index()].flags & StackNode::kGc);
            }
        },
        cancel);
    if (!st) return st.error();
    // Each thread's last sample lasts one interval (the next one is not known).
    for (size_t thread = 0; thread < last.size(); ++thread)
        close(thread, last[thread].timeUs + interval);
    return std::shared_ptr<const TrackColumns>(std::move(out));
}

} // namespace gilscope
