#pragma once

#include "core/sampler/sampler.h"
#include "ui/rate_history.h"

#include <QChartView>

class QLineSeries;
class QValueAxis;

namespace gilscope::ui {

// The live rate chart: requested and achieved samples per second (left axis), missed
// and error percentages (right axis) over the recording. Fed by the window's live
// timer; its history is bounded (RateHistory), so a 10-hour recording stays readable.
class RateChart : public QChartView {
    Q_OBJECT
public:
    explicit RateChart(QWidget* parent = nullptr);
    void addStats(const SamplerStats& stats);
    void clear();
    const RateHistory& history() const { return history_; }
    QSize sizeHint() const override;
    // A slim strip (no legend, no time labels) or the full chart.
    void setCompact(bool compact);
    // The strip shares the thread tracks' time axis: seconds [fromSec, toSec] of the
    // recording drawn between x = plotLeft and plotRight (the chart's own pixels), the
    // tracks' plot columns. The full chart keeps its own axis, from 0 to the end.
    void alignTo(double fromSec, double toSec, int plotLeft, int plotRight);
    QRectF plotArea() const;
    double axisStartSec() const;
    double axisEndSec() const;

private:
    void redraw();

    RateHistory history_;
    QLineSeries* requested_;
    QLineSeries* achieved_;
    QLineSeries* missed_;
    QLineSeries* errors_;
    QValueAxis* time_;
    QValueAxis* rate_;
    QValueAxis* percent_;
    bool compact_ = false;
    bool aligned_ = false;
    double fromSec_ = 0, toSec_ = 0;
    int plotLeft_ = 0, plotRight_ = 0;
};

} // namespace gilscope::ui
