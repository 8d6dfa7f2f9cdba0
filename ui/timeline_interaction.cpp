// The timeline's visible span and what the mouse does to it: Ctrl+wheel zooms around
// the pointer; zoomed, the wheel, Shift+left-drag and middle-drag pan; a double-click
// shows the whole recording again; hovering gives the time and the thread's states;
// a click on a name selects the track, on its twisty expands it.
// (A plain left drag belongs to the range selector, ui/analysis/timeline_range_selector.)
#include "ui/timeline_layout.h"
#include "ui/timeline_widget.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace gilscope::ui {
using namespace timeline;

int TimelineWidget::plotLeft() const {
    return kMargin + kLabelWidth;
}

int TimelineWidget::plotWidth() const {
    return std::max(10, width() - plotLeft() - kMargin);
}

// The whole recording up to the end of its last bucket (bucket i spans [i, i+1) *
// bucketUs). No minimum beyond one bucket, so a short recording fills the width.
double TimelineWidget::fullSpanUs() const {
    const uint64_t bucket = std::max<uint64_t>(snapshot_.bucketUs, 1);
    return double((snapshot_.spanUs / bucket + 1) * bucket);
}

double TimelineWidget::viewSpanUs() const {
    return zoomed() ? viewSpanUs_ : fullSpanUs();
}

double TimelineWidget::viewOffsetUs() const {
    return zoomed() ? viewOffsetUs_ : 0.0;
}

uint64_t TimelineWidget::viewStartUs() const {
    return snapshot_.originUs + uint64_t(std::llround(viewOffsetUs()));
}

uint64_t TimelineWidget::viewEndUs() const {
    return snapshot_.originUs + uint64_t(std::llround(viewOffsetUs() + viewSpanUs()));
}

// Clamps to the recording; a span covering all of it is no zoom at all.
void TimelineWidget::setView(double offsetUs, double spanUs) {
    const double full = fullSpanUs();
    // Down to 100 µs across the plot: past the buckets, the model's exact columns show
    // single samples (TimelineDetail).
    const double minSpan = std::min(full, 100.0);
    spanUs = std::clamp(spanUs, minSpan, full);
    if (spanUs >= full) {
        viewOffsetUs_ = viewSpanUs_ = 0;
    } else {
        viewSpanUs_ = spanUs;
        viewOffsetUs_ = std::clamp(offsetUs, 0.0, full - spanUs);
    }
    update();
    emit viewChanged();
}

void TimelineWidget::zoomAt(int x, double factor) {
    const double span = viewSpanUs();
    const double fraction = std::clamp(double(x - plotLeft()) / plotWidth(), 0.0, 1.0);
    const double pivot = viewOffsetUs() + fraction * span;
    const double newSpan = span * factor;
    setView(pivot - fraction * newSpan, newSpan);
}

void TimelineWidget::panBy(int dx) {
    if (!zoomed()) return;
    setView(viewOffsetUs_ + double(dx) * viewSpanUs_ / plotWidth(), viewSpanUs_);
}

void TimelineWidget::resetZoom() {
    if (zoomed()) setView(0, fullSpanUs());
}

uint64_t TimelineWidget::timeAt(int x) const {
    const double fraction = std::clamp(double(x - plotLeft()) / plotWidth(), 0.0, 1.0);
    return snapshot_.originUs + uint64_t(std::llround(viewOffsetUs() + fraction * viewSpanUs()));
}

int TimelineWidget::xAt(uint64_t timeUs) const {
    const double offset = double(timeUs) - double(snapshot_.originUs) - viewOffsetUs();
    const double x = plotLeft() + offset * plotWidth() / viewSpanUs();
    // Times outside the visible span land just outside the plot, never far away.
    return int(std::lround(std::clamp(x, double(plotLeft() - 1), double(width() + 1))));
}

bool TimelineWidget::inPlot(QPoint widgetPos) const {
    const QPoint pos = toLayout(widgetPos);
    return pos.x() >= plotLeft() && pos.y() >= kPlotTop && !noteRect().contains(pos);
}

// A thread's samples and states between two absolute times (whole buckets).
TimelineBucket TimelineWidget::totalIn(const ThreadTimeline& thread, uint64_t fromUs,
                                       uint64_t toUs) const {
    const uint64_t bucketUs = std::max<uint64_t>(snapshot_.bucketUs, 1);
    const size_t first =
        fromUs > snapshot_.originUs ? size_t((fromUs - snapshot_.originUs) / bucketUs) : 0;
    const size_t last = toUs == UINT64_MAX
                            ? thread.buckets.size()
                            : std::min(thread.buckets.size(),
                                       toUs > snapshot_.originUs
                                           ? size_t((toUs - snapshot_.originUs) / bucketUs) + 1
                                           : size_t(0));
    TimelineBucket t;
    for (size_t i = first; i < last; ++i)
        t.merge(thread.buckets[i]);
    return t;
}

QString TimelineWidget::toolTipAt(QPoint widgetPos) const {
    const QPoint pos = toLayout(widgetPos);
    const QString help =
        tr("%1Ctrl+wheel: zoom around the pointer\nZoomed: the wheel, Shift+drag or middle-drag "
           "pans\nDouble-click: the whole recording")
            .arg(dragHint_.isEmpty() ? QString() : dragHint_ + QStringLiteral("\n"));
    if (snapshot_.threads.empty()) return help;
    if (noteRect().contains(pos))
        return tr("Threads without samples in the chosen state. Click to show or hide them.");
    for (const TimelineMark& m : snapshot_.marks)
        if (markFlagRect(m).contains(pos))
            return tr("Mark “%1” · click: the range from it to the next mark")
                .arg(QString::fromStdString(m.text));
    if (const TimelineMark* mark = markAt(pos))
        return tr("Mark “%1” at %2 s")
            .arg(QString::fromStdString(mark->text))
            .arg(double(mark->timeUs - snapshot_.originUs) / 1e6, 0, 'f', 3);
    if (const int track = counterTrackAt(pos); track >= 0)
        return counterToolTip(track, pos) + QStringLiteral("\n\n") + help;
    const Row* row = rowAt(pos.y());
    if (pos.x() < plotLeft()) {
        if (!row) return help;
        // Over a name: the thread, its samples, and its shares in the range in force
        // (the visible span when none).
        const ThreadTimeline& thread = snapshot_.threads[row->thread];
        const uint64_t from = hasHighlight_ ? highlightStartUs_ : viewStartUs();
        const uint64_t to = hasHighlight_ ? highlightEndUs_ : viewEndUs();
        const TimelineBucket b = totalIn(thread, from, to);
        QString text = tr("%1\nThread id %2 · %3 samples in all")
                           .arg(threadTitle(thread.threadId))
                           .arg(thread.threadId)
                           .arg(thread.samples);
        text += tr("\n%1 samples between %2 and %3 s%4")
                    .arg(b.samples)
                    .arg(double(from - std::min(from, snapshot_.originUs)) / 1e6, 0, 'f', 3)
                    .arg(double(std::min(to, viewEndUs()) - snapshot_.originUs) / 1e6, 0, 'f', 3)
                    .arg(b.samples ? QStringLiteral(":") : QString());
        text += sharesText(trackColumnOf(b));
        return text + tr("\n\nClick: show only this thread in the analysis views\nCtrl+click: "
                         "add or remove it · Shift+click: a run of threads\n▸: its lanes");
    }
    const uint64_t t = timeAt(pos.x());
    const double sec = double(t - snapshot_.originUs) / 1e6;
    QString text = tr("%1 s").arg(sec, 0, 'f', viewSpanUs() < 2e6 ? 4 : 3);
    if (row) {
        const ThreadTimeline& thread = snapshot_.threads[row->thread];
        text += QStringLiteral(" · ") + threadTitle(thread.threadId);
        // The column under the pointer, as drawn: its states add up to 100 %.
        const int x = std::clamp(pos.x() - plotLeft(), 0, std::max(plotWidth() - 1, 0));
        const std::vector<TrackColumn> columns = columnsOf(thread, plotWidth());
        const TrackColumn c = size_t(x) < columns.size() ? columns[size_t(x)] : TrackColumn{};
        const double from = double(timeAt(plotLeft() + x) - snapshot_.originUs) / 1e6;
        const double to = double(timeAt(plotLeft() + x + 1) - snapshot_.originUs) / 1e6;
        const int decimals = viewSpanUs() < 2e6 ? 4 : 3;
        if (c.total() == 0) {
            text += tr("\nNo samples of this thread between %1 and %2 s")
                        .arg(from, 0, 'f', decimals)
                        .arg(to, 0, 'f', decimals);
        } else {
            text +=
                tr("\nBetween %1 and %2 s:").arg(from, 0, 'f', decimals).arg(to, 0, 'f', decimals);
            text += sharesText(c);
            // What it waited on there: the last wait the bucket under the pointer named.
            const uint64_t bucketUs = std::max<uint64_t>(snapshot_.bucketUs, 1);
            const size_t i = size_t((t - snapshot_.originUs) / bucketUs);
            const TimelineBucket b =
                i < thread.buckets.size() ? thread.buckets[i] : TimelineBucket{};
            if (b.waitLabel && b.waitLabel < snapshot_.waitLabels.size())
                text += tr("\n  Waiting on: %1")
                            .arg(QString::fromStdString(snapshot_.waitLabels[b.waitLabel]));
        }
    }
    return text + QStringLiteral("\n\n") + help;
}

// A tooltip follows the data: shown, it is written again for the same place; the text
// of a place that is gone (the pointer left) goes with it.
void TimelineWidget::refreshToolTip() {
    if (!toolTipAt_ || !QToolTip::isVisible()) return;
    if (!rect().contains(*toolTipAt_)) {
        QToolTip::hideText();
        toolTipAt_.reset();
        return;
    }
    QToolTip::showText(mapToGlobal(*toolTipAt_), toolTipAt(*toolTipAt_), this);
}

void TimelineWidget::enterEvent(QEnterEvent* event) {
    pointerInside_ = true;
    QWidget::enterEvent(event);
}

void TimelineWidget::leaveEvent(QEvent* event) {
    pointerInside_ = false;
    toolTipAt_.reset();
    relayout(); // what waited for the pointer to go (a new order, folding) happens now
    update();
    QWidget::leaveEvent(event);
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* event) {
    QMenu menu(this);
    QAction* first = menu.addAction(tr("Order tracks as first seen"));
    first->setCheckable(true);
    first->setChecked(order_ == TrackOrder::FirstSeen);
    QAction* busiest = menu.addAction(tr("Order tracks busiest first (in the chosen state)"));
    busiest->setCheckable(true);
    busiest->setChecked(order_ == TrackOrder::Busiest);
    menu.addSeparator();
    QAction* expand = menu.addAction(tr("Show every track's lanes"));
    QAction* collapse = menu.addAction(tr("Fold every track's lanes"));
    QAction* chosen = menu.exec(event->globalPos());
    if (chosen == first) setTrackOrder(TrackOrder::FirstSeen);
    if (chosen == busiest) setTrackOrder(TrackOrder::Busiest);
    if (chosen == expand) setAllExpanded(true);
    if (chosen == collapse) setAllExpanded(false);
}

bool TimelineWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        toolTipAt_ = help->pos();
        QToolTip::showText(help->globalPos(), toolTipAt(help->pos()), this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
    if (snapshot_.threads.empty()) return QWidget::wheelEvent(event);
    const QPoint delta = event->angleDelta();
    const int x = int(event->position().x());
    if (event->modifiers() & Qt::ControlModifier) {
        if (delta.y() == 0) return event->accept();
        zoomAt(x, std::pow(0.8, delta.y() / 120.0)); // one notch: 20 % closer
        event->accept();
        return;
    }
    // Zoomed, the wheel moves through time (an eighth of the span per notch); not
    // zoomed, it scrolls the thread list as usual.
    if (zoomed()) {
        const int notches = delta.x() != 0 ? -delta.x() : -delta.y();
        panBy(int(std::lround(notches / 120.0 * plotWidth() / 8.0)));
        event->accept();
        return;
    }
    QWidget::wheelEvent(event);
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
    const QPoint pos = toLayout(event->position().toPoint());
    if (event->button() == Qt::LeftButton && noteRect().contains(pos)) {
        setFoldedShown(!showFolded_);
        return;
    }
    if (event->button() == Qt::LeftButton && pos.x() < plotLeft()) {
        if (const Row* row = rowAt(pos.y()); row && pos.y() < row->y + kTrackHeight) {
            const uint64_t id = snapshot_.threads[row->thread].threadId;
            if (twistyRect(id).contains(pos))
                setExpanded(id, !row->expanded);
            else
                clickName(*row, event->modifiers());
            return;
        }
    }
    const bool panGesture =
        event->button() == Qt::MiddleButton ||
        (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    if (panGesture && zoomed()) {
        panning_ = true;
        panFromX_ = pos.x();
        panFromOffsetUs_ = viewOffsetUs_;
        cursorBeforePan_ = cursor();
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    QWidget::mousePressEvent(event);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
    if (!panning_) return QWidget::mouseMoveEvent(event);
    // Dragging moves the lanes with the pointer: right shows earlier times.
    const int dx = int(event->position().x()) - panFromX_;
    setView(panFromOffsetUs_ - double(dx) * viewSpanUs_ / plotWidth(), viewSpanUs_);
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
    if (!panning_) return QWidget::mouseReleaseEvent(event);
    panning_ = false;
    setCursor(cursorBeforePan_);
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event) {
    const QPoint pos = toLayout(event->position().toPoint());
    if (event->button() != Qt::LeftButton || noteRect().contains(pos)) return;
    // On a name (its twisty or not), a double-click opens or closes its lanes: the
    // first click selected the track.
    if (pos.x() < plotLeft()) {
        if (const Row* row = rowAt(pos.y()); row && pos.y() < row->y + kTrackHeight)
            setExpanded(snapshot_.threads[row->thread].threadId, !row->expanded);
        return;
    }
    resetZoom();
}

} // namespace gilscope::ui
