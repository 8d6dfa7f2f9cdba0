#include "ui/analysis/timeline_range_selector.h"

#include "ui/timeline_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWidget>

namespace gilscope::ui {

// Paints the drag and the range in force over the timeline; never takes the mouse.
class RangeOverlay : public QWidget {
public:
    explicit RangeOverlay(QWidget* parent) : QWidget(parent) {
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_NoSystemBackground);
    }
    int from = 0, to = 0;
    bool visibleRange = false;
    bool drag = false;

protected:
    void paintEvent(QPaintEvent*) override {
        if (!visibleRange) return;
        QPainter p(this);
        const int a = std::min(from, to), b = std::max(from, to);
        const QColor fill = drag ? QColor(40, 120, 220, 60) : QColor(40, 120, 220, 35);
        p.fillRect(QRect(a, 0, std::max(1, b - a), height()), fill);
        p.setPen(QPen(QColor(40, 120, 220), 1));
        p.drawLine(a, 0, a, height());
        p.drawLine(b, 0, b, height());
    }
};

TimelineRangeSelector::TimelineRangeSelector(TimelineWidget* timeline)
    : QObject(timeline), timeline_(timeline), overlay_(new RangeOverlay(timeline)) {
    overlay_->setObjectName(QStringLiteral("timelineRangeOverlay"));
    timeline->installEventFilter(this);
    timeline->setCursor(Qt::IBeamCursor);
    timeline->setDragHint(tr("Drag: filter every analysis view to a time range"));
    overlay_->setGeometry(timeline->rect());
    overlay_->show();
}

void TimelineRangeSelector::showRange(bool hasRange, uint64_t startUs, uint64_t endUs) {
    hasRange_ = hasRange;
    startUs_ = startUs;
    endUs_ = endUs;
    if (timeline_) timeline_->setHighlightRange(hasRange, startUs, endUs);
    updateOverlay();
}

void TimelineRangeSelector::updateOverlay() {
    if (!timeline_) return;
    int from = 0, to = 0;
    bool visible = false;
    if (dragging_) {
        from = dragFrom_;
        to = dragTo_;
        visible = true;
    } else if (hasRange_) {
        from = timeline_->xAt(startUs_);
        to = endUs_ == UINT64_MAX ? timeline_->width() : timeline_->xAt(endUs_);
        visible = true;
    }
    // Called from the timeline's paint events too: touch the overlay only on a change,
    // or the two would repaint each other forever.
    if (overlay_->geometry() == timeline_->rect() && overlay_->from == from && overlay_->to == to &&
        overlay_->visibleRange == visible && overlay_->drag == dragging_)
        return;
    overlay_->setGeometry(timeline_->rect());
    overlay_->raise();
    overlay_->from = from;
    overlay_->to = to;
    overlay_->visibleRange = visible;
    overlay_->drag = dragging_;
    overlay_->update();
}

bool TimelineRangeSelector::eventFilter(QObject* watched, QEvent* event) {
    if (watched != timeline_) return false;
    switch (event->type()) {
    case QEvent::MouseButtonPress: {
        auto* e = static_cast<QMouseEvent*>(event);
        // Shift+drag pans a zoomed timeline, and the folded-threads note is a button.
        if (e->button() != Qt::LeftButton || (e->modifiers() & Qt::ShiftModifier) ||
            timeline_->snapshot().threads.empty() || !timeline_->inPlot(e->position().toPoint()))
            break;
        // A mark's flag: from that mark to the next one, in one click.
        if (const auto range = timeline_->markRangeAt(e->position().toPoint())) {
            emit rangeSelected(range->first, range->second);
            return true;
        }
        dragging_ = true;
        dragFrom_ = dragTo_ = e->position().toPoint().x();
        updateOverlay();
        return true;
    }
    case QEvent::MouseMove: {
        if (!dragging_) break;
        dragTo_ = static_cast<QMouseEvent*>(event)->position().toPoint().x();
        updateOverlay();
        return true;
    }
    case QEvent::MouseButtonRelease: {
        if (!dragging_) break;
        dragging_ = false;
        dragTo_ = static_cast<QMouseEvent*>(event)->position().toPoint().x();
        updateOverlay();
        if (std::abs(dragTo_ - dragFrom_) >= 3) {
            const uint64_t a = timeline_->timeAt(std::min(dragFrom_, dragTo_));
            const uint64_t b = timeline_->timeAt(std::max(dragFrom_, dragTo_));
            if (b > a) emit rangeSelected(a, b);
        }
        return true;
    }
    case QEvent::Resize:
    case QEvent::Paint:
        updateOverlay();
        break;
    default:
        break;
    }
    return false;
}

} // namespace gilscope::ui
