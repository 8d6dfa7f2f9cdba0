#pragma once

#include "ui/analysis/analysis_result.h"
#include "ui/analysis/compare_controller.h"

#include <QColor>
#include <QWidget>

#include <cmath>
#include <vector>

namespace gilscope::ui {

// A flame graph of the top-down tree, painted by hand: width is samples. Click a frame to
// zoom into it (back and reset undo that); a search highlights matching frames and says
// what share of the samples they cover; colours are stable per module. The icicle toggle
// puts the root at the top. With a comparison, frames are coloured by the change of their
// share against the same call path in the baseline instead (changeColor).
class FlameGraphWidget : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphWidget(QWidget* parent = nullptr);

    void setResult(AnalysisResultPtr result);
    void setSearch(const QString& text);
    void setIcicle(bool icicle);
    void setComparison(ComparisonPtr comparison);
    // A frame's share minus its call path's share in the baseline, in points; NaN
    // without a comparison. Colours reach full strength at kFullChange points.
    double frameChange(uint32_t node) const;
    static constexpr double kFullChange = 10;
    static QColor changeColor(double points); // blue: shrank, grey: same, red: grew

    void zoomTo(uint32_t node);
    void back();
    void resetZoom();
    bool canGoBack() const { return !history_.empty(); }
    uint32_t zoomNode() const { return zoom_; }
    // Share of all kept samples whose stack has a frame matching the search (0 without one).
    double searchShare() const { return searchShare_; }
    QString searchSummary() const;

    // The node under a point, or UINT32_MAX; and where a function's widest frame is drawn
    // (for tests and keyboard users), or an empty rect.
    uint32_t nodeAt(QPoint p) const;
    std::vector<uint32_t> pathTo(uint32_t node) const; // function ids, root first
    const AnalysisResultPtr& result() const { return result_; }
    QRect frameRect(const QString& function) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void frameClicked(uint32_t func);
    void zoomChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Box {
        QRectF rect;
        uint32_t node;
        bool matched;
        double change = NAN; // against the baseline (frameChange), when comparing
    };
    void relayout();
    // Lays out node and the callees wide enough to see; pathKey is node's call path
    // (profile_diff's key), for its change against a baseline. Only what is drawn is
    // visited: a bottom-up tree is explored no further.
    void layoutChildren(uint32_t node, double x, double width, int depth, uint64_t pathKey);
    double changeOf(uint32_t node, uint64_t pathKey) const;
    QRectF rowRect(int depth, double x, double width) const;
    bool matches(uint32_t node) const;
    uint32_t resolve(const std::vector<uint32_t>& path) const;
    void updateSearchShare();
    // A function's colour, name and the name's width, worked out once per recording:
    // painting a live update must not split paths or measure text for every frame.
    struct Look {
        bool known = false;
        QColor fill;
        QString name;
        int nameWidth = 0;
        uint64_t key = 0; // functionKey, to find the frame in a baseline
    };
    const Look& lookOf(uint32_t func);

    AnalysisResultPtr result_;
    const CallTree* tree_ = nullptr;
    uint32_t zoom_ = 0;
    std::vector<uint32_t> zoomPath_;
    std::vector<std::vector<uint32_t>> history_; // zoom paths, survive live updates
    QString search_;
    double searchShare_ = 0;
    bool icicle_ = false;
    int depth_ = 0;
    std::vector<Box> boxes_;
    std::vector<Look> looks_; // per function id, for the recording modelSerial_ names
    uint64_t modelSerial_ = 0;
    ComparisonPtr comparison_;
    bool comparing() const;
};

} // namespace gilscope::ui
