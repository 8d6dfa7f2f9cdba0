#pragma once

#include "core/live/live_timeline.h"

#include <QWidget>

namespace gilscope::ui {

// Per-thread lanes drawn from a TimelineSnapshot: for each thread, how much of each
// time bucket it held the GIL, waited for it, ran on a CPU, and collected garbage,
// as colour intensity. The whole recording fits the width; threads stack downwards.
class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    void setSnapshot(TimelineSnapshot snapshot);
    const TimelineSnapshot& snapshot() const { return snapshot_; }
    void clear();

    // The absolute time (µs, the snapshot's clock) drawn at widget x, clamped to the
    // recording, and the x where a time is drawn: for range selection on top.
    uint64_t timeAt(int x) const;
    int xAt(uint64_t timeUs) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    int contentHeight() const;

    TimelineSnapshot snapshot_;
};

} // namespace gilscope::ui
