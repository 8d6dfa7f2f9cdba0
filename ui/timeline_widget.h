#pragma once

#include "core/analysis/profile_filter.h"
#include "core/live/live_timeline.h"

#include <QCursor>
#include <QWidget>

#include <vector>

namespace gilscope::ui {

// Per-thread lanes drawn from a TimelineSnapshot: for each thread, how much of each
// time bucket it held the GIL, waited for it, ran on a CPU, handled an exception and
// collected garbage, as colour intensity. Threads are ordered busiest first by the
// chosen state filter; threads without any of it are folded into one note line.
// The whole recording fits the width until the user zooms (Ctrl+wheel); zoomed, the
// wheel, Shift+drag and middle-drag pan, and a double-click shows everything again.
// Hovering shows the time and the thread's states there.
class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    void setSnapshot(TimelineSnapshot snapshot);
    const TimelineSnapshot& snapshot() const { return snapshot_; }
    void clear();

    // Orders threads by their samples in this state and folds those without any.
    void setStateFilter(StateFilter state);
    StateFilter stateFilter() const { return state_; }
    // What a left drag does, said in the tooltip (the range selector sets it).
    void setDragHint(const QString& hint);

    // The absolute time (µs, the snapshot's clock) drawn at widget x, clamped to the
    // visible span, and the x where a time is drawn: for range selection on top.
    uint64_t timeAt(int x) const;
    int xAt(uint64_t timeUs) const;
    bool inPlot(QPoint pos) const; // over the lanes (not the note line or the margins)

    // The visible span (absolute µs); the whole recording unless zoomed.
    uint64_t viewStartUs() const;
    uint64_t viewEndUs() const;
    bool zoomed() const { return viewSpanUs_ > 0; }
    void zoomAt(int x, double factor); // factor < 1 zooms in, keeping the time at x
    void panBy(int dx);                // in pixels; positive shows later times
    void resetZoom();

    // Threads as drawn, top to bottom, and those folded away (not drawn as lanes).
    std::vector<uint64_t> shownThreads() const;
    std::vector<uint64_t> foldedThreads() const;
    bool foldedShown() const { return showFolded_; }
    void setFoldedShown(bool shown);
    QString threadTitle(uint64_t threadId) const;
    static QStringList laneNames();
    // Where lane (an index into laneNames()) of a thread is drawn; empty if it is not.
    QRect laneRect(uint64_t threadId, int lane) const;
    QRect noteRect() const; // the "N threads folded" line; empty when none
    QString toolTipAt(QPoint pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void viewChanged(); // zoomed or panned

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    struct Row {
        size_t thread; // index into snapshot_.threads
        int y = 0, height = 0;
        bool folded = false; // drawn as a thin row without lanes
    };
    void relayout();
    int contentHeight() const;
    int plotLeft() const;
    int plotWidth() const;
    double fullSpanUs() const;
    double viewOffsetUs() const; // the visible span's start, from originUs
    double viewSpanUs() const;
    void setView(double offsetUs, double spanUs);
    uint64_t activity(const ThreadTimeline& thread) const;
    const Row* rowAt(int y) const;
    void paintRow(QPainter& p, const Row& row);
    void paintAxis(QPainter& p, int y);

    TimelineSnapshot snapshot_;
    StateFilter state_ = StateFilter::All;
    std::vector<Row> rows_;
    std::vector<size_t> folded_;
    int noteY_ = -1;
    bool showFolded_ = false;
    double viewOffsetUs_ = 0, viewSpanUs_ = 0; // span 0: the whole recording
    bool panning_ = false;
    int panFromX_ = 0;
    double panFromOffsetUs_ = 0;
    QCursor cursorBeforePan_;
    QString dragHint_;
};

} // namespace gilscope::ui
