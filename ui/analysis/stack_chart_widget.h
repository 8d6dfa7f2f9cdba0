#pragma once

#include "core/analysis/stack_chart.h"

#include <QColor>
#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

namespace gilscope::ui {

// Paints a StackChart (computed off the GUI thread): one lane per thread, a header
// line, the stacks root first downwards, one box per frame and run of columns, in the
// flame graph's module colours, and a strip under the columns with the thread's state
// (GIL held, waiting, on CPU without the GIL, off CPU). Painting costs what the pixels
// show, whatever the number of samples behind them. Hover for the frame's function,
// file:line, time and duration; a search highlights matching frames; Ctrl+wheel asks
// for a zoom around the time under the pointer.
class StackChartWidget : public QWidget {
    Q_OBJECT
public:
    explicit StackChartWidget(QWidget* parent = nullptr);

    // modelSerial: which recording; within one, function ids keep their meaning.
    void setChart(std::shared_ptr<const StackChart> chart, uint64_t modelSerial);
    const StackChart* chart() const { return chart_.get(); }
    void setSearch(const QString& text);
    // A lane's title ("Thread 12 · db-writer (main)"), from whoever names threads.
    void setThreadTitles(std::function<QString(uint64_t threadId)> titles);

    // Where a time is drawn (the left edge of its column) and the frames drawn in the
    // column at x for a thread, root first: function names; empty without a sample.
    int xAt(uint64_t timeUs) const;
    QStringList stackAt(uint64_t threadId, int x) const;
    ColumnState stateAt(uint64_t threadId, int x) const;
    // Where the frame at depth (0: root) in the column at x is drawn, and a thread's
    // state strip; empty rects when not drawn.
    QRect frameRect(uint64_t threadId, int depth, int x) const;
    QRect stripRect(uint64_t threadId) const;
    QString toolTipAt(QPoint pos) const;
    // The function of the frame drawn at a point (a right-click's target), or nullptr.
    const FunctionInfo* functionAt(QPoint pos) const;
    int matchedBoxes() const { return matchedBoxes_; } // drawn boxes the search matches

    static QColor stateColor(ColumnState state);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void frameClicked(uint32_t func);
    void widthChanged(int width);
    // Ctrl+wheel: zoom around this time by factor (< 1 zooms in), as on the timeline.
    void zoomRequested(uint64_t timeUs, double factor);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct LaneGeometry {
        int top = 0;    // header line
        int rows = 0;   // its top: the root frames
        int strip = 0;  // its top: the state strip
        int bottom = 0; // after the gap
    };
    struct Look {
        bool known = false;
        bool matched = false;
        QRgb fill = 0;
        QString name;
        int nameWidth = 0;
    };
    const Look& lookOf(uint32_t func);
    void relayout();
    int laneAt(int y) const;
    int widgetX(uint32_t column) const; // a chart column's left edge in widget pixels
    uint32_t columnOf(int x) const;
    const StackChartBox* boxAt(size_t lane, int depth, uint32_t column) const;
    void paintLane(QImage& image, QPoint origin, const QRect& exposed, size_t lane);
    void paintLabels(QPainter& p, const QRect& exposed, size_t lane);

    std::shared_ptr<const StackChart> chart_;
    uint64_t modelSerial_ = 0;
    std::vector<LaneGeometry> geometry_;
    std::vector<Look> looks_; // per function id
    QString search_;
    int matchedBoxes_ = 0;
    int contentHeight_ = 0;
    std::function<QString(uint64_t)> titles_;
};

} // namespace gilscope::ui
