#include "ui/timeline_widget.h"

#include "ui/timeline_layout.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gilscope::ui {
using namespace timeline;

namespace {

// 1, 2 or 5 times a power of ten, so that ticks are at least ~80 px apart.
double tickStepSec(double spanSec, int widthPx) {
    const double wanted = spanSec * 80.0 / std::max(widthPx, 1);
    for (double base = 1e-6; base < 1e6; base *= 10)
        for (double m : {1.0, 2.0, 5.0})
            if (base * m >= wanted) return base * m;
    return 1e6;
}

QString tickLabel(double sec, double stepSec) {
    const int decimals = stepSec >= 1 ? 0 : int(std::ceil(-std::log10(stepSec) - 1e-9));
    return QStringLiteral("%1 s").arg(sec, 0, 'f', std::min(decimals, 6));
}

// A compact track's colour for one column: the state that dominates it, its share as
// intensity (quantised, so that runs of equal colour become one rectangle), and a band
// for exception or GC. Equal keys draw the same.
struct StripShade {
    int lane = -1; // kGilLane, kWaitLane, kCpuLane, a wait's lane, or -1: idle
    int level = 0; // 0: no samples
    int band = -1; // kExceptionLane, kGcLane or -1
    bool operator==(const StripShade&) const = default;
};

StripShade shadeOf(const TimelineBucket& c) {
    StripShade s;
    if (c.samples == 0) return s;
    const auto level = [&](uint32_t n) { return 1 + int(7.0 * n / c.samples + 0.5); };
    if (c.hasGil > 0 && c.hasGil >= c.gilRequested) {
        s.lane = kGilLane;
        s.level = level(c.hasGil);
    } else if (c.gilRequested > 0) {
        s.lane = kWaitLane;
        s.level = level(c.gilRequested);
    } else if (c.onCpu > 0) {
        s.lane = kCpuLane;
        s.level = level(c.onCpu);
    } else if (const uint32_t waits = std::max({c.lockWait, c.ioWait, c.sleepPoll}); waits > 0) {
        // Off CPU: the wait that dominates the column, so a lock reads apart from a sleep.
        s.lane = waits == c.lockWait ? kLockLane : waits == c.ioWait ? kIoLane : kSleepPollLane;
        s.level = level(waits);
    } else {
        s.level = 1;
    }
    s.band = c.exception > 0 ? kExceptionLane : c.gc > 0 ? kGcLane : -1;
    return s;
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timeline"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setMouseTracking(true);
}

int TimelineWidget::headerHeight() {
    return kPlotTop;
}

int TimelineWidget::trackHeight() {
    return kTrackHeight;
}

void TimelineWidget::setSnapshot(TimelineSnapshot snapshot) {
    snapshot_ = std::move(snapshot);
    if (zoomed() && viewSpanUs_ >= fullSpanUs()) viewSpanUs_ = 0;
    relayout();
    update();
}

void TimelineWidget::clear() {
    viewSpanUs_ = viewOffsetUs_ = 0;
    showFolded_ = false;
    expanded_.clear();
    selected_.clear();
    hasHighlight_ = false;
    setSnapshot(TimelineSnapshot{});
}

void TimelineWidget::setStateFilter(StateFilter state) {
    if (state == state_) return;
    state_ = state;
    relayout();
    update();
}

void TimelineWidget::setFoldedShown(bool shown) {
    showFolded_ = shown;
    relayout();
    update();
}

void TimelineWidget::setDragHint(const QString& hint) {
    dragHint_ = hint;
}

void TimelineWidget::setHighlightRange(bool hasRange, uint64_t startUs, uint64_t endUs) {
    hasHighlight_ = hasRange;
    highlightStartUs_ = startUs;
    highlightEndUs_ = endUs;
}

// How busy a thread is in the chosen state: its samples in it. With All, time on a
// CPU first (samples when the recording has no CPU state), then samples.
uint64_t TimelineWidget::activity(const ThreadTimeline& thread) const {
    const TimelineBucket t = totalIn(thread, 0, UINT64_MAX);
    switch (state_) {
    case StateFilter::All:
        return (uint64_t(t.onCpu) << 32) + t.samples;
    case StateFilter::OnCpu:
    case StateFilter::LockContention:
        return t.onCpu;
    case StateFilter::HoldingGil:
    case StateFilter::GilContention:
        return t.hasGil;
    case StateFilter::WaitingForGil:
        return t.gilRequested;
    case StateFilter::Exception:
        return t.exception;
    case StateFilter::Gc:
        return t.gc;
    case StateFilter::LockWait:
        return t.lockWait;
    case StateFilter::IoWait:
        return t.ioWait;
    case StateFilter::Poll:
    case StateFilter::Sleep:
        return t.sleepPoll;
    }
    return t.samples;
}

void TimelineWidget::relayout() {
    const int oldHeight = contentHeight();
    std::vector<std::pair<uint64_t, size_t>> busy;
    busy.reserve(snapshot_.threads.size());
    for (size_t i = 0; i < snapshot_.threads.size(); ++i)
        busy.emplace_back(activity(snapshot_.threads[i]), i);
    // Busiest first; ties keep the snapshot's order (main thread, then by id).
    std::stable_sort(busy.begin(), busy.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    rows_.clear();
    folded_.clear();
    for (const auto& [count, index] : busy)
        if (count == 0 && state_ != StateFilter::All) folded_.push_back(index);
    // The note goes first, where it is seen however many threads there are; the
    // folded threads, when shown, go last.
    int y = kPlotTop + countersHeight();
    noteY_ = folded_.empty() ? -1 : y;
    if (!folded_.empty()) y += kNoteHeight;
    auto add = [&](size_t index, bool folded) {
        const bool open = expanded(snapshot_.threads[index].threadId);
        rows_.push_back(Row{index, y, open ? kExpandedHeight : kTrackHeight, folded, open});
        y += rows_.back().height;
    };
    for (const auto& [count, index] : busy)
        if (count > 0 || state_ == StateFilter::All) add(index, false);
    if (showFolded_)
        for (size_t index : folded_)
            add(index, true);
    const int height = contentHeight();
    if (height != oldHeight) {
        updateGeometry();
        emit contentHeightChanged(height);
    }
}

int TimelineWidget::contentHeight() const {
    int bottom = kPlotTop + countersHeight() + kTrackHeight; // room for "No samples yet"
    if (!rows_.empty()) bottom = std::max(bottom, rows_.back().y + rows_.back().height);
    if (noteY_ >= 0) bottom = std::max(bottom, noteY_ + kNoteHeight);
    return bottom + kMargin;
}

QSize TimelineWidget::sizeHint() const {
    return {800, contentHeight()};
}
QSize TimelineWidget::minimumSizeHint() const {
    return {400, contentHeight()};
}

QStringList TimelineWidget::laneNames() {
    QStringList names;
    for (const Lane& lane : kLanes)
        names << tr(lane.name);
    return names;
}

// Per pixel column of the visible span, the aggregate of the buckets drawn there: many
// narrow buckets merge into one column, a wide bucket spans several.
std::vector<TimelineBucket> TimelineWidget::columnsOf(const ThreadTimeline& thread, int w) const {
    const double bucketUs = double(std::max<uint64_t>(snapshot_.bucketUs, 1));
    const double offset = viewOffsetUs(), pxPerUs = w / viewSpanUs();
    std::vector<TimelineBucket> columns(static_cast<size_t>(w));
    const size_t first = size_t(std::max(0.0, std::floor(offset / bucketUs)));
    const size_t last =
        std::min(thread.buckets.size(), size_t(std::ceil((offset + viewSpanUs()) / bucketUs)) + 1);
    for (size_t i = first; i < last; ++i) {
        const TimelineBucket& b = thread.buckets[i];
        if (b.samples == 0) continue;
        const int x0 = int(std::floor((double(i) * bucketUs - offset) * pxPerUs));
        const int x1 = int(std::ceil((double(i + 1) * bucketUs - offset) * pxPerUs));
        for (int x = std::max(0, x0); x < std::min(w, std::max(x1, x0 + 1)); ++x)
            columns[size_t(x)].merge(b);
    }
    return columns;
}

void TimelineWidget::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(event->rect(), palette().base());
    paintHeader(p);
    if (snapshot_.threads.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(plotLeft(), kPlotTop, plotWidth(), kTrackHeight), Qt::AlignCenter,
                   tr("No samples yet"));
        return;
    }
    paintAxis(p, kMargin + kLegendHeight);
    paintCounters(p);
    for (const Row& row : rows_)
        if (row.y < event->rect().bottom() && row.y + row.height > event->rect().top())
            paintRow(p, row);
    paintMarks(p);
    if (noteY_ >= 0) {
        QStringList ids;
        for (uint64_t id : foldedThreads())
            if (ids.size() < 8) ids << QString::number(id);
        if (folded_.size() > 8) ids << QStringLiteral("…");
        const QString state = QString::fromUtf8(stateFilterLabel(state_).data(),
                                                int(stateFilterLabel(state_).size()));
        p.setPen(palette().color(QPalette::PlaceholderText));
        const QString threads =
            folded_.size() == 1 ? tr("1 thread") : tr("%1 threads").arg(folded_.size());
        p.drawText(noteRect(), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("%1 without “%2” samples folded (%3) · click to %4")
                       .arg(threads, state, ids.join(QStringLiteral(", ")),
                            showFolded_ ? tr("hide them") : tr("show them")));
    }
}

// The legend, and on the right what the mouse does.
void TimelineWidget::paintHeader(QPainter& p) {
    const int y = kMargin, h = kLegendHeight;
    int x = kMargin;
    auto item = [&](const QColor& color, const QString& name) {
        p.fillRect(x, y + (h - 10) / 2, 10, 10, color);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(x + 14, y, 200, h, Qt::AlignVCenter | Qt::AlignLeft, name);
        x += 14 + p.fontMetrics().horizontalAdvance(name) + 14;
    };
    for (const Lane& lane : kLanes)
        if (!(snapshot_.freeThreaded && isGilLane(lane))) item(lane.color, tr(lane.name));
    QColor idle = kIdleColor;
    idle.setAlpha(90);
    item(idle, tr("Idle"));
    p.setPen(palette().color(QPalette::PlaceholderText));
    const QString hint = zoomed()
                             ? tr("Zoomed · wheel or Shift+drag pans · double-click: all")
                             : tr("Click a name to select · ▸ shows its lanes · Ctrl+wheel zooms");
    p.drawText(x, y, width() - x - kMargin, h, Qt::AlignVCenter | Qt::AlignRight,
               p.fontMetrics().elidedText(hint, Qt::ElideLeft, std::max(0, width() - x - kMargin)));
}

void TimelineWidget::paintAxis(QPainter& p, int y) {
    const QColor faint = palette().color(QPalette::Mid);
    const int left = plotLeft(), w = plotWidth();
    const double startSec = viewOffsetUs() / 1e6, spanSec = viewSpanUs() / 1e6;
    const double step = tickStepSec(spanSec, w);
    p.setPen(faint);
    p.drawLine(left, y + kAxisHeight - 1, left + w, y + kAxisHeight - 1);
    for (double t = std::ceil(startSec / step - 1e-9) * step; t <= startSec + spanSec + 1e-9;
         t += step) {
        const int tx = left + int(std::lround((t - startSec) / spanSec * w));
        p.setPen(faint);
        p.drawLine(tx, y + kAxisHeight - 5, tx, y + kAxisHeight - 1);
        p.setPen(palette().color(QPalette::Text));
        // Centred on its tick, but never cut off at the right edge.
        const int labelX = std::min(tx - 50, width() - kMargin - 100);
        p.drawText(labelX, y, 100, kAxisHeight - 5,
                   (labelX == tx - 50 ? Qt::AlignHCenter : Qt::AlignRight) | Qt::AlignVCenter,
                   tickLabel(t, step));
    }
}

void TimelineWidget::paintRow(QPainter& p, const Row& row) {
    const ThreadTimeline& thread = snapshot_.threads[row.thread];
    const int left = plotLeft(), w = plotWidth();
    paintName(p, row);
    const std::vector<TimelineBucket> columns = columnsOf(thread, w);

    // The compact strip: one colour per column, runs of equal shade as one rectangle.
    const int stripY = row.y + kStripInset, stripH = kTrackHeight - 2 * kStripInset;
    p.fillRect(left, stripY, w, stripH, palette().alternateBase());
    for (int x = 0; x < w;) {
        const StripShade shade = shadeOf(columns[size_t(x)]);
        int end = x + 1;
        while (end < w && shadeOf(columns[size_t(end)]) == shade)
            ++end;
        if (shade.level > 0) {
            QColor c = shade.lane >= 0 ? kLanes[shade.lane].color : kIdleColor;
            c.setAlpha(shade.lane >= 0 ? 60 + 195 * (shade.level - 1) / 7 : 70); // full: opaque
            p.fillRect(left + x, stripY, end - x, stripH, c);
            if (shade.band >= 0)
                p.fillRect(left + x, stripY + stripH - kBandHeight, end - x, kBandHeight,
                           kLanes[shade.band].color);
        }
        x = end;
    }
    if (!row.expanded) return;

    // Sub-lanes: each state's share as colour intensity.
    const QColor faint = palette().color(QPalette::PlaceholderText);
    int laneY = row.y + kTrackHeight;
    for (const Lane& lane : kLanes) {
        p.setPen(faint);
        p.drawText(kMargin + kTwistyWidth, laneY, kLabelWidth - kTwistyWidth - 4, kLaneHeight,
                   Qt::AlignLeft | Qt::AlignVCenter, tr(lane.name));
        p.fillRect(left, laneY, w, kLaneHeight, palette().alternateBase());
        if (snapshot_.freeThreaded && isGilLane(lane)) {
            p.drawText(left + 4, laneY, w - 8, kLaneHeight, Qt::AlignLeft | Qt::AlignVCenter,
                       tr("none: this Python is free-threaded and has no GIL"));
            laneY += kLaneHeight + kLaneGap;
            continue;
        }
        auto shade = [&](int x) {
            const TimelineBucket& c = columns[size_t(x)];
            if (c.samples == 0 || c.*lane.count == 0) return -1;
            return int(std::lround(255.0 * (0.15 + 0.85 * c.*lane.count / c.samples)));
        };
        for (int x = 0; x < w;) {
            const int alpha = shade(x);
            int end = x + 1;
            while (end < w && shade(end) == alpha)
                ++end;
            if (alpha >= 0) {
                QColor c = lane.color;
                c.setAlpha(alpha);
                p.fillRect(left + x, laneY, end - x, kLaneHeight, c);
            }
            x = end;
        }
        laneY += kLaneHeight + kLaneGap;
    }
}

void TimelineWidget::paintName(QPainter& p, const Row& row) {
    const ThreadTimeline& thread = snapshot_.threads[row.thread];
    const bool selected =
        std::find(selected_.begin(), selected_.end(), thread.threadId) != selected_.end();
    const QRect name = nameRect(thread.threadId);
    if (selected) {
        p.fillRect(name, palette().highlight());
        QColor band = palette().color(QPalette::Highlight);
        band.setAlpha(40);
        p.fillRect(QRect(plotLeft(), row.y, plotWidth(), row.height), band);
    }
    p.setPen(selected     ? palette().color(QPalette::HighlightedText)
             : row.folded ? palette().color(QPalette::PlaceholderText)
                          : palette().color(QPalette::Text));
    p.drawText(twistyRect(thread.threadId), Qt::AlignCenter,
               row.expanded ? QStringLiteral("▾") : QStringLiteral("▸"));
    QFont bold = font();
    bold.setBold(thread.mainThread);
    p.setFont(bold);
    const QRect text = name.adjusted(kTwistyWidth, 0, -2, 0);
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
               trackLabel(thread.threadId, p.fontMetrics(), text.width()));
    p.setFont(font());
}

} // namespace gilscope::ui
