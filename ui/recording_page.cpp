// The recording page and how it shares its height: a slim header, the rate strip, and
// a splitter with the thread tracks over the analysis views (and a launched program's
// output below them).
#include "ui/recording_page.h"

#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/compare_bar.h"
#include "ui/analysis/state_filter_choices.h"
#include "ui/live_figures.h"
#include "ui/rate_chart.h"
#include "ui/timeline_widget.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTextCursor>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace gilscope::ui {

namespace {
constexpr int kRateStripHeight = 60; // the slim rate chart; expanded it takes more
constexpr int kRateExpandedHeight = 200;
const QString kSplitterKey = QStringLiteral("window/splitter");
const QString kRateExpandedKey = QStringLiteral("window/rateExpanded");

// Label/value pairs in three column pairs, so the timelines keep the room.
QString factsTable(const std::vector<std::pair<std::string, std::string>>& rows) {
    constexpr size_t kPairsPerRow = 3;
    QString html = QStringLiteral("<table cellspacing=0 cellpadding=2>");
    for (size_t i = 0; i < rows.size(); i += kPairsPerRow) {
        html += QStringLiteral("<tr>");
        for (size_t j = i; j < std::min(rows.size(), i + kPairsPerRow); ++j)
            html += QStringLiteral("<td><i>%1</i>&nbsp;&nbsp;</td><td>%2&nbsp;&nbsp;&nbsp;&nbsp;"
                                   "&nbsp;&nbsp;</td>")
                        .arg(QString::fromStdString(rows[j].first).toHtmlEscaped(),
                             QString::fromStdString(rows[j].second).toHtmlEscaped());
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

} // namespace

RecordingPage::RecordingPage(QWidget* dialogParent, QWidget* parent)
    : QWidget(parent), figures_(new LiveFigures(this)), fileInfo_(new QLabel(this)),
      rateToggle_(new QToolButton(this)), rateChart_(new RateChart(this)),
      timeline_(new TimelineWidget(this)), tracksArea_(new QScrollArea(this)),
      analysis_(new AnalysisPanel(this)), compare_(new CompareBar(dialogParent)),
      output_(new QPlainTextEdit(this)), splitter_(new QSplitter(Qt::Vertical, this)) {
    setObjectName(QStringLiteral("recordingPage"));
    analysis_->attachTimeline(timeline_);
    compare_->attach(analysis_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    // Header: the figures on one line (or a file's facts), the rate strip's toggle.
    auto* header = new QHBoxLayout;
    fileInfo_->setObjectName(QStringLiteral("fileInfo"));
    fileInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fileInfo_->setWordWrap(true); // a long fact wraps: it never widens the window
    fileInfo_->hide();
    header->addWidget(figures_, 1);
    header->addWidget(fileInfo_, 1);
    rateToggle_->setObjectName(QStringLiteral("rateToggle"));
    rateToggle_->setCheckable(true);
    rateToggle_->setAutoRaise(true);
    rateToggle_->setToolTip(tr("Show the rate chart larger, with its legend"));
    connect(rateToggle_, &QToolButton::toggled, this, &RecordingPage::setRateExpanded);
    header->addWidget(rateToggle_, 0, Qt::AlignTop);
    layout->addLayout(header);
    layout->addWidget(rateChart_);
    setRateStripShown(false); // until something records
    setRateExpanded(false);

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
    splitter_->setObjectName(QStringLiteral("mainSplitter"));
    splitter_->setChildrenCollapsible(false);
    splitter_->addWidget(tracksArea_);
    splitter_->addWidget(analysis_);
    splitter_->addWidget(output_);
    splitter_->setStretchFactor(1, 1); // a taller window goes to the analysis views
    splitter_->installEventFilter(this);
    connect(splitter_, &QSplitter::splitterMoved, this, [this] { tracksSized_ = true; });
    connect(timeline_, &TimelineWidget::contentHeightChanged, this, &RecordingPage::fitTracks);
    connect(timeline_, &TimelineWidget::viewChanged, this, &RecordingPage::alignRateStrip);
    layout->addWidget(splitter_, 1);
}

void RecordingPage::showLive(const RecordingSession& session) {
    file_ = nullptr;
    analysis_->setLoading(0);
    fileInfo_->hide();
    figures_->show();
    figures_->clear();
    rateChart_->clear();
    setRateStripShown(true);
    timeline_->clear();
    analysis_->showRecording(session.profile(), session.process(), true);
    // A state the recording never read is greyed out in the filter, with the reason.
    markRecordedStates(analysis_->stateBox(), int(session.mode()), session.pythonMinor(),
                       session.freeThreaded());
}

void RecordingPage::showProgress(const SamplerStats& stats, const RecordingSession& session,
                                 bool live) {
    figures_->setStats(stats);
    if (live) rateChart_->addStats(stats);
    timeline_->setSnapshot(session.timeline());
    alignRateStrip();
    if (!live) analysis_->setLive(false);
}

void RecordingPage::showFile(const RecordingFile& file, bool loading) {
    file_ = &file;
    figures_->clear();
    figures_->hide(); // live figures mean nothing for a file; its facts say more
    setRateStripShown(false);
    timeline_->clear(); // no selection or expanded track from before
    timeline_->setSnapshot(file.timeline());
    fileInfo_->setText(factsTable(file.describe()));
    fileInfo_->show();
    analysis_->setLoading(loading ? file.info().sampleCount : 0);
    analysis_->showRecording(file.profile(), nullptr, loading);
    const TachInfo& info = file.info();
    markRecordedStates(analysis_->stateBox(), info.mode.value_or(-1),
                       info.pythonMajor == 3 ? info.pythonMinor : 0, info.freeThreaded);
}

void RecordingPage::fileLoaded(const RecordingFile& file) {
    fileInfo_->setText(factsTable(file.describe())); // each thread's samples, as loaded
    analysis_->setLoading(0);
    analysis_->setLive(false); // the last refresh: the whole recording
}

void RecordingPage::forgetFile() {
    file_ = nullptr;
    timeline_->clear();
    analysis_->clear();
}

void RecordingPage::startOutput(const QString& commandLine) {
    output_->clear();
    output_->show();
    appendOutput(QStringLiteral("$ %1\n").arg(commandLine));
}

void RecordingPage::appendOutput(const QString& text) {
    // Appended as it comes (lines may arrive in pieces); follows the end unless the
    // user scrolled up to read.
    QScrollBar* bar = output_->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum() - 2;
    QTextCursor end(output_->document());
    end.movePosition(QTextCursor::End);
    end.insertText(text);
    if (atEnd) bar->setValue(bar->maximum());
}

bool RecordingPage::eventFilter(QObject* watched, QEvent* event) {
    // After the splitter shared out its new height, the tracks get theirs.
    if (watched == splitter_ &&
        (event->type() == QEvent::Resize || event->type() == QEvent::Show)) {
        QMetaObject::invokeMethod(this, &RecordingPage::fitTracks, Qt::QueuedConnection);
        // A wider window moves the tracks' columns: the rate strip follows.
        QMetaObject::invokeMethod(this, &RecordingPage::alignRateStrip, Qt::QueuedConnection);
    }
    return QWidget::eventFilter(watched, event);
}

void RecordingPage::fitTracks() {
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

void RecordingPage::setRateStripShown(bool shown) {
    rateChart_->setVisible(shown);
    rateToggle_->setVisible(shown);
}

void RecordingPage::setRateExpanded(bool expanded) {
    rateToggle_->setChecked(expanded);
    rateToggle_->setText(expanded ? tr("▾ Rate chart") : tr("▸ Rate chart"));
    rateChart_->setCompact(!expanded);
    rateChart_->setFixedHeight(expanded ? kRateExpandedHeight : kRateStripHeight);
    alignRateStrip();
}

void RecordingPage::alignRateStrip() {
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

void RecordingPage::resetLayout() {
    tracksSized_ = false;
    setRateExpanded(false);
    timeline_->setAllExpanded(false);
    fitTracks();
}

void RecordingPage::loadSettings(const QSettings& settings) {
    // A track area the user sized stays so; otherwise it fits its tracks.
    if (settings.contains(kSplitterKey))
        tracksSized_ = splitter_->restoreState(settings.value(kSplitterKey).toByteArray());
    setRateExpanded(settings.value(kRateExpandedKey, false).toBool());
}

void RecordingPage::saveSettings(QSettings& settings) const {
    if (tracksSized_)
        settings.setValue(kSplitterKey, splitter_->saveState());
    else
        settings.remove(kSplitterKey);
    settings.setValue(kRateExpandedKey, rateToggle_->isChecked());
}

void RecordingPage::forgetSettings(QSettings& settings) {
    settings.remove(kSplitterKey);
    settings.remove(kRateExpandedKey);
}

} // namespace gilscope::ui
