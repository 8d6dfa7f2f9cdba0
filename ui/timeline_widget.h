#pragma once

#include "core/analysis/profile_filter.h"
#include "core/analysis/track_columns.h"
#include "core/session/live_timeline.h"

#include <QCursor>
#include <QFontMetrics>
#include <QWidget>

#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace gilscope::ui {

// The thread tracks, drawn from a TimelineSnapshot: one compact track per thread whose
// every pixel column stacks the states the thread was in there (GIL held, waiting for it,
// on a CPU, a lock, I/O, sleep, idle: TrackState) in their proportions, in the legend's
// colours, with exception and GC as a band under it; when the view is finer than the
// snapshot's buckets, the columns come exact from the analysis model (setDetail), down to
// single samples. The twisty before a track's name expands it into its sub-lanes, each
// state's share as the height of a bar. Clicking a name selects the track (Ctrl toggles,
// Shift extends), and the selection filters the analysis views (threadSelectionChanged).
// Tracks keep the order their threads were first seen in (or busiest first in the chosen
// state, as the user chooses from the right-click menu), and never move while the pointer
// is over them; threads without any samples in the chosen state are folded into one note
// line. The whole recording fits the width until the user zooms (Ctrl+wheel); zoomed,
// the wheel, Shift+drag and middle-drag pan, and a double-click shows everything again.
// Hovering shows the time and the thread's states, which add up to 100 %.
class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);

    void setSnapshot(TimelineSnapshot snapshot);
    const TimelineSnapshot& snapshot() const { return snapshot_; }
    void clear();

    // Orders threads by their samples in this state and folds those without any.
    void setStateFilter(StateFilter state);
    enum class TrackOrder { FirstSeen, Busiest };
    void setTrackOrder(TrackOrder order);
    TrackOrder trackOrder() const { return order_; }
    // The exact columns of a view (ProfileModel::trackColumns); drawn while the view is
    // the one they were made for. detailWanted(): the view is finer than the buckets.
    void setDetail(std::shared_ptr<const TrackColumns> detail);
    TrackColumnsRequest viewRequest() const;
    bool detailWanted() const;
    bool showsDetail() const; // the exact columns of this very view are drawn
    // What a thread's track draws in each column of the view, as painted.
    std::vector<TrackColumn> columnsOf(const ThreadTimeline& thread, int width) const;
    // A state's name, and a lane's: a free-threaded target's GIL states are its attached
    // and suspended threads (gilBitWords).
    QString trackStateName(int state) const;
    QString laneName(int lane) const;
    static QColor trackStateColor(int state);
    // What a left drag does, said in the tooltip (the range selector sets it).
    void setDragHint(const QString& hint);
    // The range the views are filtered to: tooltips give each thread's shares in it.
    void setHighlightRange(bool hasRange, uint64_t startUs, uint64_t endUs);

    // The absolute time (µs, the snapshot's clock) drawn at widget x, clamped to the
    // visible span, and the x where a time is drawn: for range selection on top.
    uint64_t timeAt(int x) const;
    int xAt(uint64_t timeUs) const;
    bool inPlot(QPoint pos) const; // over the tracks (not the names, note line or margins)

    // The visible span (absolute µs); the whole recording unless zoomed.
    uint64_t viewStartUs() const;
    uint64_t viewEndUs() const;
    // The tracks' plot columns (what the rate strip lines up with), in this widget.
    int plotLeft() const;
    int plotWidth() const;
    bool zoomed() const { return viewSpanUs_ > 0; }
    void zoomAt(int x, double factor); // factor < 1 zooms in, keeping the time at x
    void panBy(int dx);                // in pixels; positive shows later times
    void resetZoom();

    // Threads as drawn, top to bottom, and those folded away (not drawn as tracks).
    std::vector<uint64_t> shownThreads() const;
    std::vector<uint64_t> foldedThreads() const;
    bool foldedShown() const { return showFolded_; }
    void setFoldedShown(bool shown);
    QString threadTitle(uint64_t threadId) const;
    // The track header's text at `width` pixels: the name the user gave first and kept
    // whole where it fits, then the id, which gives way (the hover tells it).
    QString trackLabel(uint64_t threadId, const QFontMetrics& metrics, int width) const;
    static QStringList laneNames();

    // A track's sub-lanes: shown after a click on its twisty.
    bool expanded(uint64_t threadId) const { return expanded_.count(threadId) > 0; }
    void setExpanded(uint64_t threadId, bool expanded);
    void setAllExpanded(bool expanded);
    // Selected tracks (empty: all threads). setSelectedThreads does not signal.
    const std::vector<uint64_t>& selectedThreads() const { return selected_; }
    void setSelectedThreads(std::vector<uint64_t> threads);

    // Geometry, for tests and the window: a thread's whole track (its compact strip and
    // sub-lanes when expanded), its name, its twisty, and where lane (an index into
    // laneNames()) of an expanded thread is drawn; empty if it is not drawn.
    QRect trackRect(uint64_t threadId) const;
    QRect nameRect(uint64_t threadId) const;
    QRect twistyRect(uint64_t threadId) const;
    QRect laneRect(uint64_t threadId, int lane) const;
    QRect noteRect() const; // the "N threads folded" line; empty when none
    // The process's counter tracks (memory, threads, CPU, GC) above the threads, when the
    // recording has counters, and the parallelism track (how many threads ran Python at
    // once), when it has more than one thread; `track` indexes counterTrackNames(). Empty
    // when not drawn.
    QRect counterTrackRect(int track) const;
    static QStringList counterTrackNames();
    QString toolTipAt(QPoint pos) const;
    // On a mark's flag: the range from that mark to the next one (or to the end), which a
    // click on the flag selects ("from mark A to mark B").
    std::optional<std::pair<uint64_t, uint64_t>> markRangeAt(QPoint pos) const;
    QRect markFlagRect(const TimelineMark& mark) const; // empty: not in view
    // Scrolled down in its scroll area, the legend, the time axis and the counter tracks
    // stay pinned at the top of what is visible: pinnedTop() is where they are drawn (0
    // unscrolled), over the tracks that scrolled under them. Positions given to the
    // public functions here are widget positions; toLayout() maps them to the layout's.
    int pinnedTop() const;
    int pinnedHeight() const; // legend, axis and counters
    QPoint toLayout(QPoint widgetPos) const;
    // Height of the header (legend and axis) and of one compact track.
    static int headerHeight();
    static int trackHeight();

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void viewChanged(); // zoomed or panned
    // A click on a name changed the selected tracks (empty: all threads).
    void threadSelectionChanged(const std::vector<uint64_t>& threads);
    void contentHeightChanged(int height); // tracks added, expanded or folded

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void enterEvent(QEnterEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void moveEvent(QMoveEvent* event) override; // scrolled: the pinned header moves along

private:
    struct Row {
        size_t thread; // index into snapshot_.threads
        int y = 0, height = 0;
        bool folded = false;   // has no samples in the chosen state (shown on request)
        bool expanded = false; // its sub-lanes are drawn under the strip
    };
    void relayout();
    int contentHeight() const;
    double fullSpanUs() const;
    double viewOffsetUs() const; // the visible span's start, from originUs
    double viewSpanUs() const;
    void setView(double offsetUs, double spanUs);
    uint64_t activity(const ThreadTimeline& thread) const;
    const Row* rowAt(int y) const;
    const Row* rowOf(uint64_t threadId) const;
    const std::vector<TrackColumn>* detailOf(uint64_t threadId) const;
    QString sharesText(const TrackColumn& column) const;
    void refreshToolTip(); // the data changed under a shown tooltip
    TimelineBucket totalIn(const ThreadTimeline& thread, uint64_t fromUs, uint64_t toUs) const;
    void paintHeader(QPainter& p);
    void paintRow(QPainter& p, const Row& row);
    void paintName(QPainter& p, const Row& row);
    void paintAxis(QPainter& p, int y);
    void paintMarks(QPainter& p); // the user's marks, across every track
    int countersHeight() const;   // 0 without counter tracks
    bool counterTrackShown(int track) const;
    void paintParallelism(QPainter& p, const QRect& plot);
    QString parallelismToolTip(QPoint pos) const;
    // The parallel buckets in [fromUs, toUs], summed.
    ParallelBucket parallelIn(uint64_t fromUs, uint64_t toUs) const;
    double parallelTop() const; // the track's scale: 1 under a GIL, else the CPUs
    void paintCounters(QPainter& p);
    void paintCounter(QPainter& p, int track, const QRect& plot);
    void paintCollections(QPainter& p, const QRect& plot); // the GC track's marks
    int counterTrackAt(QPoint pos) const;                  // -1: not over one
    QString counterToolTip(int track, QPoint pos) const;
    double gcShareIn(uint64_t fromUs, uint64_t toUs) const; // of all threads' samples
    int markX(const TimelineMark& mark) const;              // -1: outside the view
    const TimelineMark* markAt(QPoint pos) const;
    void clickName(const Row& row, Qt::KeyboardModifiers modifiers);

    TimelineSnapshot snapshot_;
    StateFilter state_ = StateFilter::All;
    std::vector<Row> rows_;
    std::vector<size_t> folded_;
    int noteY_ = -1;
    bool showFolded_ = false;
    std::set<uint64_t> expanded_;
    std::vector<uint64_t> selected_;
    uint64_t anchor_ = 0; // the track Shift+click extends from
    bool hasHighlight_ = false;
    uint64_t highlightStartUs_ = 0, highlightEndUs_ = 0;
    double viewOffsetUs_ = 0, viewSpanUs_ = 0; // span 0: the whole recording
    bool panning_ = false;
    int panFromX_ = 0;
    double panFromOffsetUs_ = 0;
    QCursor cursorBeforePan_;
    QString dragHint_;
    std::shared_ptr<const TrackColumns> detail_;
    TrackOrder order_ = TrackOrder::FirstSeen;
    bool pointerInside_ = false;                         // rows keep their order while it is
    std::optional<QPoint> toolTipAt_;                    // where the shown tooltip was asked
    std::vector<std::pair<uint64_t, bool>> layoutOrder_; // thread, folded: the last layout
};

} // namespace gilscope::ui
