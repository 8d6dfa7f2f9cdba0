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

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timeline"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setMouseTracking(true);
}

int TimelineWidget::pinnedTop() const {
    // In a scroll area the widget moves up as it scrolls: its top is above the viewport.
    return parentWidget() ? std::clamp(-y(), 0, std::max(0, height() - pinnedHeight())) : 0;
}

int TimelineWidget::pinnedHeight() const {
    return kPlotTop + countersHeight();
}

QPoint TimelineWidget::toLayout(QPoint pos) const {
    const int pin = pinnedTop();
    return pin > 0 && pos.y() >= pin && pos.y() < pin + pinnedHeight() ? pos - QPoint(0, pin) : pos;
}

void TimelineWidget::moveEvent(QMoveEvent* event) {
    QWidget::moveEvent(event);
    update(); // a scroll blits the old picture: the pinned header is drawn anew
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
    refreshToolTip();
}

void TimelineWidget::clear() {
    viewSpanUs_ = viewOffsetUs_ = 0;
    showFolded_ = false;
    expanded_.clear();
    selected_.clear();
    hasHighlight_ = false;
    setSnapshot(TimelineSnapshot{});
}

void TimelineWidget::setTrackOrder(TrackOrder order) {
    if (order == order_) return;
    order_ = order;
    const bool inside = std::exchange(pointerInside_, false); // the user asked: it moves
    relayout();
    pointerInside_ = inside;
    update();
}

void TimelineWidget::setStateFilter(StateFilter state) {
    if (state == state_) return;
    state_ = state;
    const bool inside = std::exchange(pointerInside_, false); // the user asked: it moves
    relayout();
    pointerInside_ = inside;
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
    // As first seen (the snapshot's order), or busiest first; ties keep first seen.
    if (order_ == TrackOrder::Busiest)
        std::stable_sort(busy.begin(), busy.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
    // Under the pointer nothing moves: the threads drawn before keep their places and
    // whether they are folded; threads new since come after them.
    if (pointerInside_ && !layoutOrder_.empty()) {
        std::vector<std::pair<uint64_t, size_t>> kept;
        std::vector<bool> placed(snapshot_.threads.size(), false);
        for (const auto& [id, wasFolded] : layoutOrder_)
            for (const auto& entry : busy)
                if (snapshot_.threads[entry.second].threadId == id) {
                    const bool foldNow = entry.first == 0 && state_ != StateFilter::All;
                    // Its activity, bent so that its folding stays as it was.
                    kept.emplace_back(wasFolded ? 0 : std::max<uint64_t>(entry.first, foldNow),
                                      entry.second);
                    placed[entry.second] = true;
                }
        for (const auto& entry : busy)
            if (!placed[entry.second]) kept.push_back(entry);
        busy = std::move(kept);
    }
    rows_.clear();
    folded_.clear();
    layoutOrder_.clear();
    for (const auto& [count, index] : busy) {
        const bool fold = count == 0 && state_ != StateFilter::All;
        if (fold) folded_.push_back(index);
        layoutOrder_.emplace_back(snapshot_.threads[index].threadId, fold);
    }
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
    if (const int pin = pinnedTop(); pin > 0) {
        // The header over the tracks that scrolled under it, as if unscrolled.
        p.save();
        p.translate(0, pin);
        const QRect header(0, 0, width(), pinnedHeight());
        p.setClipRect(header);
        p.fillRect(header, palette().base());
        paintHeader(p);
        paintAxis(p, kMargin + kLegendHeight);
        paintCounters(p);
        paintMarks(p);
        p.setPen(palette().color(QPalette::Mid));
        p.drawLine(0, header.bottom(), width(), header.bottom());
        p.restore();
    }
    if (noteY_ >= 0) {
        QStringList ids;
        for (uint64_t id : foldedThreads())
            if (ids.size() < 8) ids << QString::number(id);
        if (folded_.size() > 8) ids << QStringLiteral("…");
        const std::string_view label = stateFilterLabel(state_, snapshot_.freeThreaded);
        const QString state = QString::fromUtf8(label.data(), int(label.size()));
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
    for (int l = 0; l < kLaneCount; ++l)
        item(kLanes[l].color, laneName(l));
    item(kIdleColor, tr("Idle")); // every colour a track draws is here, and solid
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
