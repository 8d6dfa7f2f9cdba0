#pragma once

#include <QObject>
#include <QPointer>

#include <cstdint>

namespace gilscope::ui {

class TimelineWidget;
class RangeOverlay;

// Drag-selects a time range on a TimelineWidget (without changing how it draws): a
// transparent overlay shows the drag and the range in force; releasing the mouse emits
// rangeSelected with absolute times.
class TimelineRangeSelector : public QObject {
    Q_OBJECT
public:
    explicit TimelineRangeSelector(TimelineWidget* timeline);

    // The range the views are filtered by, shaded on the timeline; none when hasRange is false.
    void showRange(bool hasRange, uint64_t startUs, uint64_t endUs);

signals:
    void rangeSelected(uint64_t startUs, uint64_t endUs);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateOverlay();

    QPointer<TimelineWidget> timeline_;
    RangeOverlay* overlay_;
    bool dragging_ = false;
    int dragFrom_ = 0, dragTo_ = 0;
    bool hasRange_ = false;
    uint64_t startUs_ = 0, endUs_ = 0;
};

} // namespace gilscope::ui
