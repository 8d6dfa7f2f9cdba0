#pragma once

#include "ui/analysis/analysis_result.h"
#include "ui/analysis/transform_menu.h"

#include <QWidget>

#include <memory>

namespace gilscope::target {
class AttachedProcess;
}

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QSplitter;
class QToolButton;
class QTreeView;
class QCheckBox;
class QMenu;

namespace gilscope {
class ProfileModel;
}

namespace gilscope::ui {

class AnalysisController;
class BusyOverlay;
class TimelineDetail;
class CallTreeModel;
class CallersCalleesView;
class FlameGraphWidget;
class LabelFilterBox;
class SourceView;
class StackChartView;
class StatusLine;
class TimelineRangeSelector;
class TimelineWidget;
class TopFunctionsModel;
class TransformBar;

// Where the time goes: top functions, call tree, bottom-up tree and flame graph of one
// recording (live or opened), with a source view. One filter drives every view: the
// thread-state choice, and the time range dragged on the timeline (back/forward).
class AnalysisPanel : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisPanel(QWidget* parent = nullptr);
    ~AnalysisPanel() override;

    // pid > 0 for a live recording (live: refresh 4x a second until setLive(false)).
    // process: the recorded process (its sources are read through its door); null: a
    // recording opened from a file.
    void showRecording(std::shared_ptr<ProfileModel> model,
                       std::shared_ptr<const target::AttachedProcess> process, bool live);
    void setLive(bool live);
    void clear();
    // Drag-selecting on this timeline filters every view to that range.
    void attachTimeline(TimelineWidget* timeline);

    AnalysisController* controller() const { return controller_; }
    QComboBox* stateBox() const { return stateBox_; }
    LabelFilterBox* labelFilter() const { return labelFilter_; }
    QLineEdit* searchBox() const { return search_; }
    QTabWidget* tabs() const { return tabs_; }
    QTableView* topView() const { return topView_; }
    TopFunctionsModel* topModel() const { return topModel_; }
    QSortFilterProxyModel* topProxy() const { return topProxy_; }
    CallTreeModel* treeModel() const { return treeModel_; }
    FlameGraphWidget* flameGraph() const { return flame_; }
    SourceView* sourceView() const { return source_; }
    CallersCalleesView* callersCallees() const { return callers_; }
    StackChartView* stackChart() const { return stackChart_; }
    StatusLine* summary() const { return summary_; }
    QToolButton* backButton() const { return backButton_; }
    QToolButton* forwardButton() const { return forwardButton_; }

    // The frame under a point of one of the views above (its function, and its call path
    // in a top-down tree), and the menu a right-click there opens.
    FrameTarget targetAt(QWidget* view, QPoint pos) const;
    QMenu* frameMenu(const FrameTarget& target);
    // The frame selected in the view shown (its current row; the flame graph's zoomed
    // frame), else the function selected last in any view: what Ctrl+T reshapes.
    FrameTarget currentTarget() const;
    // Opens the transforms' menu of currentTarget() at a global point; false: none.
    bool openTransformMenu(QPoint global);
    QToolButton* transformButton() const { return transformButton_; }
    TransformBar* transformBar() const { return transformBar_; }
    // Covers the views while a new request is computed (never an older answer shown as
    // the current one).
    BusyOverlay* busyOverlay() const { return busy_; }
    // An opened file whose model still fills: the summary says how much is read so far
    // (expected: the samples its header declares); 0 when done.
    void setLoading(uint64_t expectedSamples);

signals:
    void resultShown();

protected:
    void showEvent(QShowEvent* event) override;

private:
    QWidget* buildToolbar();
    QWidget* buildFlamePage();
    QTreeView* makeTreeView(CallTreeModel* model, QSortFilterProxyModel** proxy);
    void onResult(AnalysisResultPtr result);
    void onRequested();
    void onFilterChanged();
    void selectFunction(uint32_t func);
    void expandHottestPath(QTreeView* view);
    void applySearch(const QString& text);
    void catchUp();           // a view whose tab is shown now gets the latest result
    void installFrameMenus(); // analysis_panel_menus.cpp

    AnalysisController* controller_;
    TimelineRangeSelector* selector_ = nullptr;
    QComboBox* stateBox_;
    LabelFilterBox* labelFilter_;
    QLineEdit* search_;
    StatusLine* summary_;
    TransformBar* transformBar_;
    QLabel* rangeLabel_;
    QToolButton* backButton_;
    QToolButton* forwardButton_;
    QToolButton* resetButton_;
    QSplitter* viewsAndSource_ = nullptr;
    bool sourceSized_ = false; // the source pane got its readable width once
    QToolButton* transformButton_ = nullptr;
    QTabWidget* tabs_;
    TopFunctionsModel* topModel_;
    QSortFilterProxyModel* topProxy_;
    QTableView* topView_;
    CallTreeModel* treeModel_;
    QSortFilterProxyModel* treeProxy_ = nullptr;
    QTreeView* treeView_;
    CallTreeModel* bottomUpModel_;
    QSortFilterProxyModel* bottomUpProxy_ = nullptr;
    QTreeView* bottomUpView_;
    FlameGraphWidget* flame_;
    QLabel* flameStatus_;
    QCheckBox* icicle_;
    SourceView* source_;
    CallersCalleesView* callers_;
    StackChartView* stackChart_;
    BusyOverlay* busy_ = nullptr;
    TimelineDetail* detail_ = nullptr; // once a timeline is attached
    uint64_t loadingSamples_ = 0;
    std::string selectedName_, selectedFile_; // survives live updates
    uint32_t selectedFunc_ = kNoFunction;     // its id in the current recording
    bool expandedOnce_ = false;
    bool live_ = false; // a recording that grows: hidden views may wait (onResult)
    QWidget* flamePage_ = nullptr;
    // Views on hidden tabs that missed live updates (see onResult).
    bool topStale_ = false, treeStale_ = false, bottomUpStale_ = false, flameStale_ = false;
};

} // namespace gilscope::ui
