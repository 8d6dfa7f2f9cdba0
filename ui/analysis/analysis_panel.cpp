#include "ui/analysis/analysis_panel.h"

#include "core/analysis/profile_model.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/busy_overlay.h"
#include "ui/analysis/call_tree_model.h"
#include "ui/analysis/call_tree_view.h"
#include "ui/analysis/callers_callees_view.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/plain_text_delegate.h"
#include "ui/analysis/source_view.h"
#include "ui/analysis/stack_chart_view.h"
#include "ui/analysis/status_line.h"
#include "ui/analysis/timeline_range_selector.h"
#include "ui/analysis/top_functions_model.h"
#include "ui/analysis/transform_bar.h"
#include "ui/timeline_detail.h"
#include "ui/timeline_widget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QScrollArea>
#include <QShowEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>

#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace gilscope::ui {

namespace {

QSortFilterProxyModel* makeProxy(QAbstractItemModel* source, QObject* parent) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(source);
    proxy->setSortRole(SortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setFilterKeyColumn(0);
    proxy->setRecursiveFilteringEnabled(true);
    return proxy;
}

} // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent)
    : QWidget(parent), controller_(new AnalysisController(this)),
      topModel_(new TopFunctionsModel(this)),
      treeModel_(new CallTreeModel(CallTreeModel::Kind::TopDown, this)),
      bottomUpModel_(new CallTreeModel(CallTreeModel::Kind::BottomUp, this)) {
    setObjectName(QStringLiteral("analysisPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildToolbar());
    layout->addWidget(transformBar_ = new TransformBar(controller_, this));

    topProxy_ = makeProxy(topModel_, this);
    topProxy_->setFilterKeyColumn(-1); // name or file:line
    topView_ = new QTableView(this);
    topView_->setObjectName(QStringLiteral("topFunctionsView"));
    topView_->setModel(topProxy_);
    topView_->setSortingEnabled(true);
    topView_->sortByColumn(TopFunctionsModel::Own, Qt::DescendingOrder);
    topView_->setSelectionBehavior(QAbstractItemView::SelectRows);
    topView_->setSelectionMode(QAbstractItemView::SingleSelection);
    topView_->verticalHeader()->hide();
    topView_->setAlternatingRowColors(true);
    topView_->setWordWrap(false);
    topView_->setItemDelegate(new PlainTextDelegate(topView_));
    topView_->horizontalHeader()->setStretchLastSection(true);
    topView_->verticalHeader()->setDefaultSectionSize(topView_->fontMetrics().height() + 6);
    topView_->setColumnWidth(TopFunctionsModel::Name, 260);

    treeView_ = makeTreeView(treeModel_, &treeProxy_);
    treeView_->setObjectName(QStringLiteral("callTreeView"));
    bottomUpView_ = makeTreeView(bottomUpModel_, &bottomUpProxy_);
    bottomUpView_->setObjectName(QStringLiteral("bottomUpView"));

    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("analysisTabs"));
    tabs_->addTab(topView_, tr("Top functions"));
    flamePage_ = buildFlamePage();
    tabs_->addTab(flamePage_, tr("Flame graph"));
    tabs_->addTab(treeView_, tr("Call tree"));
    tabs_->addTab(bottomUpView_, tr("Bottom-up"));
    callers_ = new CallersCalleesView(this);
    tabs_->addTab(callers_, tr("Callers / callees"));
    tabs_->addTab(stackChart_ = new StackChartView(controller_, this), tr("Stack chart"));

    source_ = new SourceView(this);
    auto* split = viewsAndSource_ = new QSplitter(Qt::Horizontal, this);
    split->addWidget(tabs_);
    split->addWidget(source_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    busy_ = new BusyOverlay(split);

    connect(controller_, &AnalysisController::resultReady, this, &AnalysisPanel::onResult);
    connect(controller_, &AnalysisController::requested, this, &AnalysisPanel::onRequested);
    connect(controller_, &AnalysisController::cleared, busy_, &BusyOverlay::stop);
    connect(controller_, &AnalysisController::filterChanged, this, &AnalysisPanel::onFilterChanged);
    connect(topView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) selectFunction(current.data(FunctionRole).toUInt());
            });
    for (QTreeView* view : {treeView_, bottomUpView_})
        connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
                [this](const QModelIndex& current) {
                    const uint func = current.data(FunctionRole).toUInt();
                    if (current.isValid() && func != kNoFunction) selectFunction(func);
                });
    connect(flame_, &FlameGraphWidget::frameClicked, this, &AnalysisPanel::selectFunction);
    connect(stackChart_, &StackChartView::frameClicked, this, &AnalysisPanel::selectFunction);
    connect(tabs_, &QTabWidget::currentChanged, this, &AnalysisPanel::catchUp);
    installFrameMenus();
    onFilterChanged();
}

AnalysisPanel::~AnalysisPanel() = default;

QTreeView* AnalysisPanel::makeTreeView(CallTreeModel* model, QSortFilterProxyModel** proxy) {
    *proxy = makeProxy(model, this);
    auto* view = new CallTreeView(this);
    view->setModel(*proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(CallTreeModel::Total, Qt::DescendingOrder);
    view->setAlternatingRowColors(true);
    view->setUniformRowHeights(true);
    view->setItemDelegate(new PlainTextDelegate(view));
    view->header()->setStretchLastSection(true);
    view->setColumnWidth(CallTreeModel::Name, 320);
    return view;
}

void AnalysisPanel::showRecording(std::shared_ptr<ProfileModel> model,
                                  std::shared_ptr<const target::AttachedProcess> process,
                                  bool live) {
    expandedOnce_ = false;
    selectedName_.clear();
    selectedFile_.clear();
    source_->clear();
    callers_->clear();
    flame_->resetZoom();
    live_ = live;
    if (detail_) detail_->setModel(model);
    controller_->setModel(std::move(model), std::move(process), live);
}

void AnalysisPanel::setLive(bool live) {
    live_ = live;
    controller_->setLive(live);
}

void AnalysisPanel::clear() {
    live_ = false;
    controller_->clear();
    if (detail_) detail_->setModel(nullptr);
    topModel_->setResult(nullptr);
    treeModel_->setResult(nullptr);
    bottomUpModel_->setResult(nullptr);
    flame_->setResult(nullptr);
    source_->clear();
    callers_->clear();
    summary_->clear();
}

void AnalysisPanel::attachTimeline(TimelineWidget* timeline) {
    selector_ = new TimelineRangeSelector(timeline);
    // Zoomed in past the tracks' buckets: exact columns from the same model.
    detail_ = new TimelineDetail(timeline, this);
    detail_->setModel(controller_->model());
    connect(controller_, &AnalysisController::resultReady, detail_, &TimelineDetail::refresh);
    connect(selector_, &TimelineRangeSelector::rangeSelected, controller_,
            &AnalysisController::setRange);
    // Selected tracks filter every view (back and forward select them again); the
    // timeline orders and folds its threads by the same state.
    connect(timeline, &TimelineWidget::threadSelectionChanged, controller_,
            &AnalysisController::setThreads);
    connect(controller_, &AnalysisController::filterChanged, timeline, [this, timeline] {
        timeline->setStateFilter(controller_->state());
        timeline->setSelectedThreads(controller_->filter().threads);
    });
    timeline->setStateFilter(controller_->state());
    stackChart_->followTimeline(timeline);
    onFilterChanged();
}

void AnalysisPanel::applySearch(const QString& text) {
    topProxy_->setFilterFixedString(text);
    treeProxy_->setFilterFixedString(text);
    bottomUpProxy_->setFilterFixedString(text);
    flame_->setSearch(text);
    stackChart_->setSearch(text);
}

void AnalysisPanel::onFilterChanged() {
    const ProfileFilter& f = controller_->filter();
    backButton_->setEnabled(controller_->canGoBack());
    forwardButton_->setEnabled(controller_->canGoForward());
    resetButton_->setEnabled(f.hasRange || !f.threads.empty());
    const int stateIndex = stateBox_->findData(int(f.state));
    if (stateIndex >= 0 && stateIndex != stateBox_->currentIndex())
        stateBox_->setCurrentIndex(stateIndex);
    const auto latest = controller_->latest();
    const uint64_t origin = latest && latest->snapshot ? latest->snapshot->originUs : 0;
    if (f.hasRange && origin) {
        auto sec = [origin](uint64_t t) { return t > origin ? double(t - origin) / 1e6 : 0.0; };
        rangeLabel_->setText(
            tr("%1 s – %2 s").arg(sec(f.startUs), 0, 'f', 3).arg(sec(f.endUs), 0, 'f', 3));
    } else {
        rangeLabel_->setText(f.hasRange ? tr("time range")
                                        : tr("drag on the timeline to pick a range"));
    }
    if (selector_) selector_->showRange(f.hasRange, f.startUs, f.endUs);
}

void AnalysisPanel::onRequested() {
    const auto latest = controller_->latest();
    const QString what = requestShown(controller_->filter(), controller_->transforms(),
                                      latest && latest->snapshot ? latest->snapshot->originUs : 0);
    // At once, not after the overlay's delay: the old summary must not stand for this.
    summary_->setText(tr("Computing: %1…").arg(what));
    busy_->start(tr("Computing the views for\n%1").arg(what));
}

void AnalysisPanel::setLoading(uint64_t expectedSamples) {
    loadingSamples_ = expectedSamples;
}

void AnalysisPanel::onResult(AnalysisResultPtr result) {
    if (result->generation == controller_->generation()) busy_->stop();
    if (!result->error.isEmpty()) {
        summary_->setText(tr("Analysis failed: %1").arg(result->error));
        return;
    }
    const ProfileSnapshot& s = *result->snapshot;
    QLocale loc;
    QString text =
        tr("%1 · %2 of %3 thread-samples · %4")
            .arg(threadsShown(s), loc.toString(qulonglong(s.matchedSamples)),
                 loc.toString(qulonglong(s.recordedSamples)),
                 QString::fromUtf8(stateFilterLabel(s.filter.state, s.freeThreaded).data()));
    if (isContention(s.filter.state))
        text +=
            tr(" · %1 ticks with a thread waiting").arg(loc.toString(qulonglong(s.contendedTicks)));
    if (loadingSamples_ > 0 && !s.finished)
        text = tr("Reading the recording: %1 of %2 samples so far · ")
                   .arg(loc.toString(qulonglong(s.recordedSamples)),
                        loc.toString(qulonglong(loadingSamples_))) +
               text;
    summary_->setText(text);

    // A live update changes the models in place: what the user expanded, selected and
    // scrolled to stays. A new recording or another filter starts them over. While live,
    // the views on hidden tabs catch up when shown (their share of the GUI thread's
    // 5 ms); the first and the last result reach every view.
    const bool deferHidden = live_ && expandedOnce_;
    // Deferred, the table keeps its rows and their function ids, which keep their
    // meaning within a recording: the selection below still holds.
    bool topInPlace = true;
    topStale_ = deferHidden && tabs_->currentWidget() != topView_;
    if (!topStale_) topInPlace = topModel_->setResult(result);
    bool treeInPlace = true;
    treeStale_ = deferHidden && tabs_->currentWidget() != treeView_;
    if (!treeStale_) treeInPlace = treeModel_->setResult(result);
    bottomUpStale_ = deferHidden && tabs_->currentWidget() != bottomUpView_;
    if (!bottomUpStale_) bottomUpModel_->setResult(result);
    flameStale_ = deferHidden && tabs_->currentWidget() != flamePage_;
    if (!flameStale_) flame_->setResult(result);
    if (!expandedOnce_ && s.matchedSamples > 0) {
        expandHottestPath(treeView_);
        expandHottestPath(bottomUpView_);
        expandedOnce_ = true;
    } else if (!treeInPlace) {
        expandHottestPath(treeView_);
    }
    // A re-sort asked the shown tree to lay out its rows again: now, so that the coming
    // repaint paints once, not once before and once after that layout.
    for (QTreeView* view : {treeView_, bottomUpView_})
        if (view->isVisible()) view->doItemsLayout();
    // Keep the selected function selected across live updates. In place, its row kept
    // its selection (and its function id its meaning): no search.
    const QModelIndex current = topView_->selectionModel()->currentIndex();
    if (topInPlace && !selectedName_.empty() && current.isValid() &&
        current.data(FunctionRole).toUInt() == selectedFunc_) {
        source_->showFunction(result, selectedFunc_, controller_->sources());
        if (tabs_->currentWidget() == callers_) callers_->showFunction(result, selectedFunc_);
    } else if (!selectedName_.empty()) {
        for (int r = 0; r < topProxy_->rowCount(); ++r) {
            const QModelIndex idx = topProxy_->index(r, 0);
            const uint func = idx.data(FunctionRole).toUInt();
            if (func < s.functions.size() && s.functions[func].name == selectedName_ &&
                s.functions[func].file == selectedFile_) {
                QSignalBlocker block(topView_->selectionModel());
                topView_->selectionModel()->setCurrentIndex(
                    idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
                selectedFunc_ = func;
                source_->showFunction(result, func, controller_->sources());
                if (tabs_->currentWidget() == callers_) callers_->showFunction(result, func);
                break;
            }
        }
    }
    onFilterChanged();
    emit resultShown();
}

void AnalysisPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (sourceSized_ || viewsAndSource_->width() < 200) return;
    // The source pane wide enough to read code (~80 columns), within
    // 30-45 % of the width; the user's own drag wins after that.
    sourceSized_ = true;
    const int width = viewsAndSource_->width();
    const int source = std::clamp(source_->readableWidth(), width * 30 / 100, width * 45 / 100);
    viewsAndSource_->setSizes({width - source, source});
}

void AnalysisPanel::catchUp() {
    const AnalysisResultPtr result = controller_->latest();
    if (!result || !result->snapshot) return;
    QWidget* shown = tabs_->currentWidget();
    if (topStale_ && shown == topView_) {
        topStale_ = false;
        topModel_->setResult(result);
    }
    if (treeStale_ && shown == treeView_) {
        treeStale_ = false;
        if (!treeModel_->setResult(result)) expandHottestPath(treeView_);
    }
    if (bottomUpStale_ && shown == bottomUpView_) {
        bottomUpStale_ = false;
        bottomUpModel_->setResult(result);
    }
    if (flameStale_ && shown == flamePage_) {
        flameStale_ = false;
        flame_->setResult(result);
    }
}

void AnalysisPanel::selectFunction(uint32_t func) {
    const auto result = controller_->latest();
    if (!result || !result->snapshot || func >= result->snapshot->functions.size()) return;
    selectedName_ = result->snapshot->functions[func].name;
    selectedFunc_ = func;
    selectedFile_ = result->snapshot->functions[func].file;
    source_->showFunction(result, func, controller_->sources());
    callers_->showFunction(result, func);
}

void AnalysisPanel::expandHottestPath(QTreeView* view) {
    QModelIndex idx = view->model()->index(0, 0);
    for (int depth = 0; idx.isValid() && depth < 64; ++depth) {
        view->expand(idx);
        idx = view->model()->index(0, 0, idx);
    }
}

} // namespace gilscope::ui
