#pragma once

#include "core/analysis/stack_chart.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QScrollArea;
class QTimer;

namespace gilscope::ui {

class AnalysisController;
class JobRunner;
class StackChartWidget;
class TimelineWidget;

// The Stack chart tab: the selected threads' stacks over time (every thread when none
// is selected). Its time is the timeline's visible span, narrowed to the analysis
// filter's time range when one is set, so zooming, panning or dragging a range on the
// timeline moves it too (Ctrl+wheel on the chart zooms the timeline). The chart is computed on a
// worker (ProfileModel::stackChart through a JobRunner, one job at a time, the newest request next)
// for the pixel width shown, and only while the tab is visible: a hidden tab catches up when shown.
class StackChartView : public QWidget {
    Q_OBJECT
public:
    StackChartView(AnalysisController* controller, QWidget* parent = nullptr);
    ~StackChartView() override;

    void followTimeline(TimelineWidget* timeline);
    void setSearch(const QString& text);
    void clear();

    StackChartWidget* chart() const { return chart_; }
    QLabel* status() const { return status_; }
    bool busy() const;

signals:
    void chartShown();                // a computed chart is on screen
    void frameClicked(uint32_t func); // a frame was clicked: its function id

protected:
    void showEvent(QShowEvent* event) override;

private:
    // The window to draw (absolute µs); false when there is nothing to draw yet.
    bool window(uint64_t& startUs, uint64_t& endUs) const;
    void request();
    void onResultReady(); // a live update, or a new filter
    void onChart(std::shared_ptr<const StackChart> chart, uint64_t modelSerial);

    AnalysisController* controller_;
    QPointer<TimelineWidget> timeline_;
    JobRunner* jobs_;
    QLabel* status_;
    QScrollArea* scroll_;
    StackChartWidget* chart_;
    bool pending_ = false;              // a request came while a job ran: run it next
    bool stale_ = true;                 // the data or the window changed while the tab was hidden
    QTimer* throttle_;                  // the next live update's chart, when it is due
    QElapsedTimer queryClock_;          // since the current job started
    QElapsedTimer sinceChart_;          // since the last chart was shown
    qint64 lastQueryMs_ = 0;            // what the last chart took on the worker
    std::vector<uint64_t> lastThreads_; // the filter the last chart was made for
    TransformStack lastTransforms_;
    bool lastHasRange_ = false;
    uint64_t lastStartUs_ = 0, lastEndUs_ = 0, lastSerial_ = 0;
};

} // namespace gilscope::ui
