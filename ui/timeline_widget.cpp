#include "ui/timeline_widget.h"

#include "ui/timeline_layout.h"

#include <QLocale>
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

TimelineBucket total(const ThreadTimeline& thread) {
    TimelineBucket t;
    for (const TimelineBucket& b : thread.buckets)
        t.merge(b);
    return t;
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timeline"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setMouseTracking(true);
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

// How busy a thread is in the chosen state: its samples in it. With All, time on a
// CPU first (samples when the recording has no CPU state), then samples.
uint64_t TimelineWidget::activity(const ThreadTimeline& thread) const {
    const TimelineBucket t = total(thread);
    switch (state_) {
    case StateFilter::All:
        return (uint64_t(t.onCpu) << 32) + t.samples;
    case StateFilter::OnCpu:
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
    int y = kPlotTop;
    noteY_ = folded_.empty() ? -1 : y;
    if (!folded_.empty()) y += kNoteHeight;
    for (const auto& [count, index] : busy) {
        if (count == 0 && state_ != StateFilter::All) continue;
        rows_.push_back(Row{index, y, kThreadHeight, false});
        y += kThreadHeight;
    }
    if (showFolded_)
        for (size_t index : folded_) {
            rows_.push_back(Row{index, y, kFoldedHeight, true});
            y += kFoldedHeight;
        }
    if (contentHeight() != oldHeight) updateGeometry();
}

int TimelineWidget::contentHeight() const {
    int bottom = kPlotTop + kThreadHeight; // room for "No samples yet"
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

std::vector<uint64_t> TimelineWidget::shownThreads() const {
    std::vector<uint64_t> ids;
    for (const Row& row : rows_)
        if (!row.folded) ids.push_back(snapshot_.threads[row.thread].threadId);
    return ids;
}

std::vector<uint64_t> TimelineWidget::foldedThreads() const {
    std::vector<uint64_t> ids;
    for (size_t index : folded_)
        ids.push_back(snapshot_.threads[index].threadId);
    return ids;
}

QString TimelineWidget::threadTitle(uint64_t threadId) const {
    for (const ThreadTimeline& t : snapshot_.threads) {
        if (t.threadId != threadId) continue;
        QString title = tr("Thread %1").arg(t.threadId);
        // A name equal to the process's says nothing (threads of Python < 3.14 inherit it).
        if (!t.name.empty() && t.name != snapshot_.processName)
            title += QStringLiteral(" · ") + QString::fromStdString(t.name);
        if (t.mainThread) title += tr(" (main)");
        return title;
    }
    return {};
}

QStringList TimelineWidget::laneNames() {
    QStringList names;
    for (const Lane& lane : kLanes)
        names << tr(lane.name);
    return names;
}

QRect TimelineWidget::laneRect(uint64_t threadId, int lane) const {
    if (lane < 0 || lane >= kLaneCount) return {};
    for (const Row& row : rows_)
        if (!row.folded && snapshot_.threads[row.thread].threadId == threadId)
            return QRect(plotLeft(), row.y + kThreadHeaderHeight + lane * (kLaneHeight + kLaneGap),
                         plotWidth(), kLaneHeight);
    return {};
}

QRect TimelineWidget::noteRect() const {
    return noteY_ < 0 ? QRect() : QRect(kMargin, noteY_, width() - 2 * kMargin, kNoteHeight);
}

void TimelineWidget::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(event->rect(), palette().base());
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = palette().color(QPalette::PlaceholderText);

    // Legend, and on the right what the mouse does.
    int x = kMargin;
    for (const Lane& lane : kLanes) {
        p.fillRect(x, kMargin + 4, 12, 12, lane.color);
        p.setPen(text);
        const QString name = tr(lane.name);
        p.drawText(x + 16, kMargin, 200, 20, Qt::AlignVCenter | Qt::AlignLeft, name);
        x += 16 + p.fontMetrics().horizontalAdvance(name) + 18;
    }
    p.setPen(faint);
    const QString hint = zoomed() ? tr("Zoomed · wheel or Shift+drag pans · double-click: all")
                                  : tr("Ctrl+wheel zooms · hover for states");
    p.drawText(x, kMargin, width() - x - kMargin, 20, Qt::AlignVCenter | Qt::AlignRight, hint);

    if (snapshot_.threads.empty()) {
        p.drawText(QRect(plotLeft(), kPlotTop, plotWidth(), kThreadHeight), Qt::AlignCenter,
                   tr("No samples yet"));
        return;
    }
    paintAxis(p, kMargin + kLegendHeight);
    for (const Row& row : rows_)
        if (row.y < event->rect().bottom() && row.y + row.height > event->rect().top())
            paintRow(p, row);
    if (noteY_ >= 0) {
        QStringList ids;
        for (uint64_t id : foldedThreads())
            if (ids.size() < 8) ids << QString::number(id);
        if (folded_.size() > 8) ids << QStringLiteral("…");
        const QString state = QString::fromUtf8(stateFilterLabel(state_).data(),
                                                int(stateFilterLabel(state_).size()));
        p.setPen(faint);
        const QString threads =
            folded_.size() == 1 ? tr("1 thread") : tr("%1 threads").arg(folded_.size());
        p.drawText(noteRect(), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("%1 without “%2” samples folded (%3) · click to %4")
                       .arg(threads, state, ids.join(QStringLiteral(", ")),
                            showFolded_ ? tr("hide them") : tr("show them")));
    }
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
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = palette().color(QPalette::PlaceholderText);
    const int left = plotLeft(), w = plotWidth();
    QFont bold = font();
    bold.setBold(thread.mainThread);
    p.setFont(bold);
    p.setPen(row.folded ? faint : text);
    const QString title = threadTitle(thread.threadId);
    p.drawText(kMargin, row.y, w + kLabelWidth, kThreadHeaderHeight,
               Qt::AlignLeft | Qt::AlignVCenter, title);
    const int titleWidth = p.fontMetrics().horizontalAdvance(title);
    p.setFont(font());
    const TimelineBucket t = total(thread);
    const auto pct = [&](uint32_t n) {
        return t.samples ? QString::number(100.0 * n / t.samples, 'f', 0) : QString();
    };
    p.setPen(faint);
    p.drawText(
        kMargin + titleWidth, row.y, w + kLabelWidth - titleWidth, kThreadHeaderHeight,
        Qt::AlignLeft | Qt::AlignVCenter,
        tr("  ·  %1 samples  ·  GIL %2%  ·  waiting %3%  ·  CPU %4%  ·  exception %5%  ·  "
           "GC %6%")
            .arg(QLocale().toString(qulonglong(thread.samples)))
            .arg(pct(t.hasGil), pct(t.gilRequested), pct(t.onCpu), pct(t.exception), pct(t.gc)));
    if (row.folded) return;

    // One aggregate per pixel column of the visible span: many narrow buckets merge
    // into one column, a wide bucket spans several, and nothing is drawn twice.
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
    int laneY = row.y + kThreadHeaderHeight;
    for (const Lane& lane : kLanes) {
        p.setPen(faint);
        p.drawText(kMargin + 12, laneY, kLabelWidth - 16, kLaneHeight,
                   Qt::AlignLeft | Qt::AlignVCenter, tr(lane.name));
        p.fillRect(left, laneY, w, kLaneHeight, palette().alternateBase());
        // Runs of equal shade become one rectangle.
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

} // namespace gilscope::ui
