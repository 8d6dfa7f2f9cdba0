#include "ui/analysis/analysis_panel.h"

#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/label_filter_box.h"
#include "ui/analysis/status_line.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

// The analysis panel's filter bar and flame graph page: widgets and their wiring.
namespace gilscope::ui {

namespace {

QToolButton* makeButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}

} // namespace

QWidget* AnalysisPanel::buildToolbar() {
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(4, 2, 4, 2);
    row->addWidget(new QLabel(tr("Threads in state"), bar));
    stateBox_ = new QComboBox(bar);
    stateBox_->setObjectName(QStringLiteral("stateFilter"));
    for (StateFilter s : kAllStateFilters)
        stateBox_->addItem(
            QString::fromUtf8(stateFilterLabel(s).data(), int(stateFilterLabel(s).size())), int(s));
    stateBox_->setToolTip(
        tr("Which thread-samples every view counts. “GIL contention (holder)”: in the ticks "
           "where some thread waited for the GIL, what the thread holding it ran."));
    // Narrow enough that the whole bar fits an 800-pixel screen; the open list is wider.
    stateBox_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    stateBox_->setMinimumContentsLength(12);
    stateBox_->view()->setMinimumWidth(stateBox_->view()->sizeHintForColumn(0) + 24);
    row->addWidget(stateBox_);
    connect(stateBox_, &QComboBox::currentIndexChanged, this,
            [this] { controller_->setState(StateFilter(stateBox_->currentData().toInt())); });
    labelFilter_ = new LabelFilterBox(controller_, bar); // shown once a label is seen
    row->addSpacing(8);
    row->addWidget(labelFilter_);

    backButton_ = makeButton(QStringLiteral("◀"), tr("Previous filter (time range)"), bar);
    backButton_->setObjectName(QStringLiteral("filterBack"));
    forwardButton_ = makeButton(QStringLiteral("▶"), tr("Next filter"), bar);
    forwardButton_->setObjectName(QStringLiteral("filterForward"));
    resetButton_ = makeButton(tr("Whole recording"), tr("Drop range and thread selection"), bar);
    resetButton_->setObjectName(QStringLiteral("filterReset"));
    connect(backButton_, &QToolButton::clicked, controller_, &AnalysisController::back);
    connect(forwardButton_, &QToolButton::clicked, controller_, &AnalysisController::forward);
    connect(resetButton_, &QToolButton::clicked, controller_, &AnalysisController::resetFilters);
    row->addSpacing(12);
    row->addWidget(backButton_);
    row->addWidget(forwardButton_);
    row->addWidget(resetButton_);
    rangeLabel_ = new QLabel(bar);
    rangeLabel_->setObjectName(QStringLiteral("rangeLabel"));
    rangeLabel_->setMinimumWidth(60); // on a small screen it is cut, never the window widened
    row->addWidget(rangeLabel_);
    row->addSpacing(12);
    search_ = new QLineEdit(bar);
    search_->setObjectName(QStringLiteral("analysisSearch"));
    search_->setPlaceholderText(tr("Search functions and files"));
    search_->setClearButtonEnabled(true);
    search_->setMaximumWidth(260);
    connect(search_, &QLineEdit::textChanged, this, &AnalysisPanel::applySearch);
    row->addWidget(search_);
    // The transforms' entry point in sight: the menu of the selected frame (as a right-
    // click on it would open it), also Ctrl+T.
    transformButton_ = makeButton(tr("Transform ▾"),
                                  tr("Reshape the call tree around the selected function: merge, "
                                     "focus, collapse, drop, invert (Ctrl+T; or right-click "
                                     "a frame in any view)"),
                                  bar);
    transformButton_->setObjectName(QStringLiteral("transformButton"));
    connect(transformButton_, &QToolButton::clicked, this, [this] {
        openTransformMenu(transformButton_->mapToGlobal(transformButton_->rect().bottomLeft()));
    });
    row->addWidget(transformButton_);
    summary_ = new StatusLine(bar);
    summary_->setObjectName(QStringLiteral("analysisSummary"));
    summary_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    row->addWidget(summary_, 1);
    return bar;
}

QWidget* AnalysisPanel::buildFlamePage() {
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    flame_ = new FlameGraphWidget(page);
    flame_->setObjectName(QStringLiteral("flameGraph"));
    auto* back = makeButton(tr("◀ Zoom out"), tr("Back to the previous zoom"), page);
    back->setObjectName(QStringLiteral("flameBack"));
    auto* reset = makeButton(tr("Reset zoom"), tr("Show all samples"), page);
    reset->setObjectName(QStringLiteral("flameReset"));
    icicle_ = new QCheckBox(tr("Icicle"), page);
    icicle_->setObjectName(QStringLiteral("flameIcicle"));
    icicle_->setToolTip(tr("Root at the top, callees below"));
    flameStatus_ = new QLabel(page);
    flameStatus_->setObjectName(QStringLiteral("flameStatus"));
    bar->addWidget(back);
    bar->addWidget(reset);
    bar->addWidget(icicle_);
    bar->addWidget(flameStatus_, 1);
    layout->addLayout(bar);
    auto* scroll = new QScrollArea(page);
    scroll->setWidget(flame_);
    scroll->setWidgetResizable(true);
    layout->addWidget(scroll, 1);
    connect(back, &QToolButton::clicked, flame_, &FlameGraphWidget::back);
    connect(reset, &QToolButton::clicked, flame_, &FlameGraphWidget::resetZoom);
    connect(icicle_, &QCheckBox::toggled, flame_, &FlameGraphWidget::setIcicle);
    auto updateStatus = [this, back] {
        back->setEnabled(flame_->canGoBack());
        QString text = flame_->searchSummary();
        if (text.isEmpty())
            text = tr("Click a frame to zoom in; colours are per module, C code in blue-grey.");
        flameStatus_->setText(text);
    };
    connect(flame_, &FlameGraphWidget::zoomChanged, this, updateStatus);
    connect(controller_, &AnalysisController::resultReady, this, updateStatus);
    connect(search_, &QLineEdit::textChanged, this, updateStatus);
    updateStatus();
    return page;
}

} // namespace gilscope::ui
