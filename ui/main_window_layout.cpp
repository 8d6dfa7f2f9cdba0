// The window's two pages and how the recording page shares its height: the start page
// (process table, Launch script…, Open recording…, recent files) and the recording
// page (slim header, rate strip, thread tracks over the analysis views).
#include "ui/analysis/analysis_panel.h"
#include "ui/live_figures.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/rate_chart.h"
#include "ui/record_options_bar.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QEvent>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace gilscope::ui {

namespace {
constexpr int kRateStripHeight = 60; // the slim rate chart; expanded it takes more
constexpr int kRateExpandedHeight = 200;

QToolButton* actionButton(QAction* action, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setDefaultAction(action);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    b->setMinimumHeight(b->fontMetrics().height() * 2);
    return b;
}
} // namespace

QSize MainWindow::defaultSize(QSize available) {
    // 90 % of what is free: on a laptop (1366x768) the window nearly fills it; at
    // QT_SCALE_FACTOR=2 a 1600x1000 screen has 800x500 device-independent pixels.
    return QSize(std::min(1600, available.width() * 9 / 10),
                 std::min(1000, available.height() * 9 / 10));
}

QWidget* MainWindow::buildStartPage() {
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("startPage"));
    auto* row = new QHBoxLayout(page);
    row->setContentsMargins(0, 0, 0, 0);
    auto* processes = new QGroupBox(tr("Python processes"), page);
    auto* processLayout = new QVBoxLayout(processes);
    processLayout->addWidget(picker_);
    row->addWidget(processes, 1);

    auto* side = new QWidget(page);
    side->setFixedWidth(fontMetrics().averageCharWidth() * 36);
    auto* column = new QVBoxLayout(side);
    column->setContentsMargins(0, 8, 0, 0);
    column->addWidget(actionButton(recordAction_, side));
    column->addWidget(actionButton(launchAction_, side));
    column->addWidget(actionButton(openAction_, side));
    auto* back = actionButton(pageAction_, side);
    back->setObjectName(QStringLiteral("backToRecording"));
    column->addWidget(back);
    column->addSpacing(12);
    column->addWidget(new QLabel(tr("Recent files"), side));
    recentList_ = new QListWidget(side);
    recentList_->setObjectName(QStringLiteral("recentList"));
    connect(recentList_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const QString path = item->data(Qt::UserRole).toString();
        if (!path.isEmpty()) openRecordingFile(path);
    });
    column->addWidget(recentList_, 1);
    row->addWidget(side);
    return page;
}

QWidget* MainWindow::buildRecordingPage() {
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("recordingPage"));
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    // Header: the figures on one line (or a file's facts), the rate strip's toggle.
    auto* header = new QHBoxLayout;
    fileInfo_->setObjectName(QStringLiteral("fileInfo"));
    fileInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fileInfo_->hide();
    header->addWidget(figures_, 1);
    header->addWidget(fileInfo_, 1);
    rateToggle_ = new QToolButton(page);
    rateToggle_->setObjectName(QStringLiteral("rateToggle"));
    rateToggle_->setCheckable(true);
    rateToggle_->setAutoRaise(true);
    rateToggle_->setToolTip(tr("Show the rate chart larger, with its legend"));
    connect(rateToggle_, &QToolButton::toggled, this, &MainWindow::setRateExpanded);
    header->addWidget(rateToggle_, 0, Qt::AlignTop);
    layout->addLayout(header);
    rateChart_->hide(); // until something records
    layout->addWidget(rateChart_);
    setRateExpanded(false);

    tracksArea_ = new QScrollArea(page);
    tracksArea_->setObjectName(QStringLiteral("tracksArea"));
    tracksArea_->setWidget(timeline_);
    tracksArea_->setWidgetResizable(true);
    tracksArea_->setFrameShape(QFrame::StyledPanel);
    tracksArea_->setMinimumHeight(TimelineWidget::headerHeight() + TimelineWidget::trackHeight());
    output_->setObjectName(QStringLiteral("programOutput"));
    output_->setReadOnly(true);
    output_->setMaximumBlockCount(10000); // a chatty program cannot eat the memory
    output_->setPlaceholderText(tr("Output of the launched program"));
    output_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    output_->hide(); // until a program is launched
    splitter_ = new QSplitter(Qt::Vertical, page);
    splitter_->setObjectName(QStringLiteral("mainSplitter"));
    splitter_->setChildrenCollapsible(false);
    splitter_->addWidget(tracksArea_);
    splitter_->addWidget(analysis_);
    splitter_->addWidget(output_);
    splitter_->setStretchFactor(1, 1); // a taller window goes to the analysis views
    splitter_->installEventFilter(this);
    connect(splitter_, &QSplitter::splitterMoved, this, [this] { tracksSized_ = true; });
    connect(timeline_, &TimelineWidget::contentHeightChanged, this, &MainWindow::fitTracks);
    connect(timeline_, &TimelineWidget::viewChanged, this, &MainWindow::alignRateStrip);
    layout->addWidget(splitter_, 1);
    return page;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // After the splitter shared out its new height, the tracks get theirs.
    if (watched == splitter_ &&
        (event->type() == QEvent::Resize || event->type() == QEvent::Show)) {
        QMetaObject::invokeMethod(this, &MainWindow::fitTracks, Qt::QueuedConnection);
        // A wider window moves the tracks' columns: the rate strip follows.
        QMetaObject::invokeMethod(this, &MainWindow::alignRateStrip, Qt::QueuedConnection);
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::fitTracks() {
    if (tracksSized_ || !splitter_->isVisible()) return;
    QList<int> sizes = splitter_->sizes();
    int total = 0;
    for (int s : sizes)
        total += s;
    if (total <= 0) return;
    const int frame = 2 * tracksArea_->frameWidth();
    const int wanted = timeline_->sizeHint().height() + frame;
    const int tracks = std::clamp(wanted, tracksArea_->minimumHeight(), std::max(total / 2, 1));
    const int output = output_->isVisible() ? total / 5 : 0;
    sizes = {tracks, std::max(0, total - tracks - output), output};
    if (sizes != splitter_->sizes()) splitter_->setSizes(sizes);
}

void MainWindow::setRateExpanded(bool expanded) {
    rateToggle_->setChecked(expanded);
    rateToggle_->setText(expanded ? tr("▾ Rate chart") : tr("▸ Rate chart"));
    rateChart_->setCompact(!expanded);
    rateChart_->setFixedHeight(expanded ? kRateExpandedHeight : kRateStripHeight);
    alignRateStrip();
}

bool MainWindow::showingRecording() const {
    return pages_->currentIndex() == 1;
}

void MainWindow::showProcessPicker() {
    pages_->setCurrentIndex(0);
    updatePage();
    picker_->filter()->setFocus();
}

void MainWindow::showRecordingView() {
    pages_->setCurrentIndex(1);
    updatePage();
}

// What only one page needs: the options bar serves the start page, the process name
// the recording; the page button goes to the other one.
void MainWindow::updatePage() {
    const bool recordingPage = showingRecording();
    optionsBar_->setVisible(!recordingPage);
    processName_->setVisible(recordingPage);
    rateToggle_->setVisible(rateChart_->isVisibleTo(pages_->widget(1)));
    pageAction_->setText(recordingPage ? tr("◀ Processes") : tr("Recording ▶"));
    pageAction_->setToolTip(recordingPage ? tr("Back to the process list (a recording goes on)")
                                          : tr("Back to the recording or opened file"));
    const bool somewhereToGo = recordingPage || session_ || file_;
    pageAction_->setEnabled(somewhereToGo);
    pageAction_->setVisible(somewhereToGo);
    if (auto* back = findChild<QToolButton*>(QStringLiteral("backToRecording")))
        back->setVisible(somewhereToGo);
}

void MainWindow::resetLayout() {
    tracksSized_ = false;
    if (settings_) {
        settings_->remove(QStringLiteral("window/geometry"));
        settings_->remove(QStringLiteral("window/splitter"));
        settings_->remove(QStringLiteral("window/rateExpanded"));
    }
    showNormal();
    fitToScreen();
    setRateExpanded(false);
    timeline_->setAllExpanded(false);
    fitTracks();
}

void MainWindow::alignRateStrip() {
    const TimelineSnapshot& s = timeline_->snapshot();
    if (s.spanUs == 0) return; // no tracks yet: the strip keeps its own axis
    // The tracks count from the first sample, the strip from the sampler's start: the
    // two differ by less than a tick.
    const double from = double(timeline_->viewStartUs() - s.originUs) / 1e6;
    const double to = double(timeline_->viewEndUs() - s.originUs) / 1e6;
    const int offset =
        timeline_->mapTo(this, QPoint(0, 0)).x() - rateChart_->mapTo(this, QPoint(0, 0)).x();
    const int left = offset + timeline_->plotLeft();
    rateChart_->alignTo(from, to, left, left + timeline_->plotWidth());
}

} // namespace gilscope::ui
