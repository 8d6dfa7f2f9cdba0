// A thread's track as drawn: per pixel column, the time it spent in each state (exact from
// the analysis model when the view is finer than the timeline's buckets, else from the
// buckets), stacked in the states' own colours so that every column shows the states in
// their proportions and every colour on screen is in the legend.
#include "ui/timeline_layout.h"
#include "ui/timeline_widget.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace gilscope::ui {
using namespace timeline;

namespace {

// The colour of each TrackState: the legend's.
QColor stateColor(int state) {
    switch (TrackState(state)) {
    case TrackState::GilHeld:
        return kLanes[kGilLane].color;
    case TrackState::GilWait:
        return kLanes[kWaitLane].color;
    case TrackState::OnCpu:
        return kLanes[kCpuLane].color;
    case TrackState::LockWait:
        return kLanes[kLockLane].color;
    case TrackState::Io:
        return kLanes[kIoLane].color;
    case TrackState::SleepPoll:
        return kLanes[kSleepPollLane].color;
    case TrackState::Idle:
        break;
    }
    return kIdleColor;
}

// A lane's share of a column: its state's time, or the marks (on CPU, exception, GC).
uint64_t laneTime(const TrackColumn& c, int lane) {
    switch (lane) {
    case kGilLane:
        return c.state[size_t(TrackState::GilHeld)];
    case kWaitLane:
        return c.state[size_t(TrackState::GilWait)];
    case kCpuLane:
        return c.onCpu;
    case kExceptionLane:
        return c.exception;
    case kGcLane:
        return c.gc;
    case kLockLane:
        return c.state[size_t(TrackState::LockWait)];
    case kIoLane:
        return c.state[size_t(TrackState::Io)];
    case kSleepPollLane:
        return c.state[size_t(TrackState::SleepPoll)];
    }
    return 0;
}

void add(TrackColumn& to, const TrackColumn& from) {
    for (size_t s = 0; s < to.state.size(); ++s)
        to.state[s] += from.state[s];
    to.onCpu += from.onCpu;
    to.exception += from.exception;
    to.gc += from.gc;
}

// Heights of the stacked states in `height` pixels, in TrackState order from the bottom:
// cumulative, so that they add up to the whole height exactly, and rounded a quarter down
// on even columns and a quarter up on odd ones, so that a share between two pixel counts
// is drawn at each in turn and a run of columns shows it truly (an ordered dither).
std::array<int, kTrackStateCount> stackHeights(const TrackColumn& c, int height, int x) {
    std::array<int, kTrackStateCount> h{};
    const uint64_t total = c.total();
    if (total == 0) return h;
    const uint64_t phase = total * (x % 2 ? 3 : 1) / 4;
    uint64_t sum = 0;
    int drawn = 0;
    for (size_t s = 0; s < h.size(); ++s) {
        sum += c.state[s];
        const int top = sum == total ? height : int((sum * uint64_t(height) + phase) / total);
        h[s] = top - drawn;
        drawn = top;
    }
    return h;
}

} // namespace

TrackColumnsRequest TimelineWidget::viewRequest() const {
    return {viewStartUs(), viewEndUs(), plotWidth()};
}

bool TimelineWidget::detailWanted() const {
    // The buckets are finer than the columns: they draw it truly as they are.
    const double usPerColumn = viewSpanUs() / std::max(plotWidth(), 1);
    return !snapshot_.threads.empty() && double(snapshot_.bucketUs) > usPerColumn;
}

void TimelineWidget::setDetail(std::shared_ptr<const TrackColumns> detail) {
    detail_ = std::move(detail);
    update();
    refreshToolTip();
}

bool TimelineWidget::showsDetail() const {
    return detail_ && detail_->request == viewRequest();
}

const std::vector<TrackColumn>* TimelineWidget::detailOf(uint64_t threadId) const {
    if (!showsDetail()) return nullptr;
    for (const ThreadColumns& t : detail_->threads)
        if (t.threadId == threadId) return &t.columns;
    return nullptr;
}

// Per pixel column of the visible span: the model's exact columns when they are there
// for this view, else the buckets drawn there (many narrow buckets merge into one column,
// a wide bucket spans several).
std::vector<TrackColumn> TimelineWidget::columnsOf(const ThreadTimeline& thread, int w) const {
    if (const auto* exact = detailOf(thread.threadId); exact && int(exact->size()) == w)
        return *exact;
    const double bucketUs = double(std::max<uint64_t>(snapshot_.bucketUs, 1));
    const double offset = viewOffsetUs(), pxPerUs = w / viewSpanUs();
    std::vector<TrackColumn> columns(static_cast<size_t>(std::max(w, 0)));
    const size_t first = size_t(std::max(0.0, std::floor(offset / bucketUs)));
    const size_t last =
        std::min(thread.buckets.size(), size_t(std::ceil((offset + viewSpanUs()) / bucketUs)) + 1);
    for (size_t i = first; i < last; ++i) {
        const TimelineBucket& b = thread.buckets[i];
        if (b.samples == 0) continue;
        const TrackColumn c = trackColumnOf(b);
        const int x0 = int(std::floor((double(i) * bucketUs - offset) * pxPerUs));
        const int x1 = int(std::ceil((double(i + 1) * bucketUs - offset) * pxPerUs));
        for (int x = std::max(0, x0); x < std::min(w, std::max(x1, x0 + 1)); ++x)
            add(columns[size_t(x)], c);
    }
    return columns;
}

QString TimelineWidget::sharesText(const TrackColumn& c) const {
    const uint64_t total = c.total();
    QString text;
    if (total == 0) return text;
    // The states partition the time: these add up to 100 %.
    for (int s = 0; s < kTrackStateCount; ++s) {
        if (c.state[size_t(s)] == 0) continue;
        text += QStringLiteral("\n  %1: %2 %")
                    .arg(trackStateName(s))
                    .arg(100.0 * double(c.state[size_t(s)]) / double(total), 0, 'f', 1);
    }
    const auto mark = [&](uint64_t v, const QString& what) {
        if (v)
            text += QStringLiteral("\n  %1: %2 %")
                        .arg(what)
                        .arg(100.0 * double(v) / double(total), 0, 'f', 1);
    };
    mark(c.onCpu, tr("of which on a CPU"));
    mark(c.exception, tr("of which handling an exception"));
    mark(c.gc, tr("of which in GC"));
    return text;
}

QString TimelineWidget::laneName(int lane) const {
    const GilBitWords words = gilBitWords(snapshot_.freeThreaded);
    if (lane == kGilLane) return tr(words.held);
    if (lane == kWaitLane) return tr(words.waiting);
    return tr(kLanes[lane].name);
}

QString TimelineWidget::trackStateName(int state) const {
    switch (TrackState(state)) {
    case TrackState::GilHeld:
        return laneName(kGilLane);
    case TrackState::GilWait:
        return laneName(kWaitLane);
    case TrackState::OnCpu:
        return tr(gilBitWords(snapshot_.freeThreaded).withoutHeld);
    case TrackState::LockWait:
        return tr(kLanes[kLockLane].name);
    case TrackState::Io:
        return tr(kLanes[kIoLane].name);
    case TrackState::SleepPoll:
        return tr(kLanes[kSleepPollLane].name);
    case TrackState::Idle:
        break;
    }
    return tr("Idle");
}

QColor TimelineWidget::trackStateColor(int state) {
    return stateColor(state);
}

void TimelineWidget::paintRow(QPainter& p, const Row& row) {
    const ThreadTimeline& thread = snapshot_.threads[row.thread];
    const int left = plotLeft(), w = plotWidth();
    paintName(p, row);
    const std::vector<TrackColumn> columns = columnsOf(thread, w);

    // The compact strip: each column's states stacked in proportion, solid; equal
    // neighbours as one rectangle. Exception and GC as a band under it.
    const int stripY = row.y + kStripInset, stripH = kTrackHeight - 2 * kStripInset;
    const int bandY = stripY + stripH - kBandHeight, stackH = stripH - kBandHeight;
    p.fillRect(left, stripY, w, stripH, palette().alternateBase());
    std::array<int, kTrackStateCount> previous{};
    int runStart = 0;
    const auto flush = [&](int end) {
        int y = stripY + stackH;
        for (int s = 0; s < kTrackStateCount; ++s) {
            if (previous[size_t(s)] <= 0) continue;
            y -= previous[size_t(s)];
            p.fillRect(left + runStart, y, end - runStart, previous[size_t(s)], stateColor(s));
        }
    };
    for (int x = 0; x < w; ++x) {
        const auto heights = stackHeights(columns[size_t(x)], stackH, x);
        if (heights != previous) {
            flush(x);
            previous = heights;
            runStart = x;
        }
        const TrackColumn& c = columns[size_t(x)];
        if (c.exception || c.gc)
            p.fillRect(left + x, bandY, 1, kBandHeight,
                       kLanes[c.exception ? kExceptionLane : kGcLane].color);
    }
    flush(w);
    if (!row.expanded) return;

    // Sub-lanes: each state's share of the column's time as the height of a bar.
    const QColor faint = palette().color(QPalette::PlaceholderText);
    int laneY = row.y + kTrackHeight;
    for (int l = 0; l < kLaneCount; ++l) {
        const Lane& lane = kLanes[l];
        p.setPen(faint);
        p.drawText(kMargin + kTwistyWidth, laneY, kLabelWidth - kTwistyWidth - 4, kLaneHeight,
                   Qt::AlignLeft | Qt::AlignVCenter, laneName(l));
        p.fillRect(left, laneY, w, kLaneHeight, palette().alternateBase());
        const auto barOf = [&](int x) {
            const TrackColumn& c = columns[size_t(x)];
            const uint64_t total = c.total(), v = laneTime(c, l);
            return total == 0 || v == 0
                       ? 0
                       : std::max(1, int((v * uint64_t(kLaneHeight) + total / 2) / total));
        };
        for (int x = 0; x < w;) {
            const int bar = barOf(x);
            int end = x + 1;
            while (end < w && barOf(end) == bar)
                ++end;
            if (bar > 0) p.fillRect(left + x, laneY + kLaneHeight - bar, end - x, bar, lane.color);
            x = end;
        }
        laneY += kLaneHeight + kLaneGap;
    }
}

} // namespace gilscope::ui
