#include "ui/analysis/stack_chart_view.h"

#include "core/analysis/profile_model.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/stack_chart_widget.h"
#include "ui/job_runner.h"
#include "ui/timeline_widget.h"

#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>

namespace gilscope::ui {

StackChartView::StackChartView(AnalysisController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller), jobs_(new JobRunner(this)),
      throttle_(new QTimer(this)) {
    throttle_->setSingleShot(true);
    connect(throttle_, &QTimer::timeout, this, &StackChartView::request);
    setObjectName(QStringLiteral("stackChartPage"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("stackChartStatus"));
    status_->setContentsMargins(4, 2, 4, 2);
    layout->addWidget(status_);
    scroll_ = new QScrollArea(this);
    chart_ = new StackChartWidget(scroll_);
    chart_->setObjectName(QStringLiteral("stackChart"));
    scroll_->setWidget(chart_);
    scroll_->setWidgetResizable(true);
    // The width is the time axis: it follows the tab, it never scrolls.
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(scroll_, 1);
    connect(controller_, &AnalysisController::resultReady, this, &StackChartView::onResultReady);
    connect(controller_, &AnalysisController::cleared, this, &StackChartView::clear);
    connect(chart_, &StackChartWidget::widthChanged, this, [this](int width) {
        if (!chart_->chart() || int(chart_->chart()->widthPx) != width) request();
    });
    connect(chart_, &StackChartWidget::frameClicked, this, &StackChartView::frameClicked);
    connect(chart_, &StackChartWidget::zoomRequested, this, [this](uint64_t timeUs, double factor) {
        if (timeline_) timeline_->zoomAt(timeline_->xAt(timeUs), factor); // viewChanged follows
    });
}

StackChartView::~StackChartView() = default;

bool StackChartView::busy() const {
    return jobs_->running() || pending_;
}

void StackChartView::followTimeline(TimelineWidget* timeline) {
    timeline_ = timeline;
    connect(timeline, &TimelineWidget::viewChanged, this, &StackChartView::request);
    chart_->setThreadTitles([timeline = QPointer<TimelineWidget>(timeline)](uint64_t id) {
        return timeline ? timeline->threadTitle(id) : QString();
    });
    request();
}

void StackChartView::setSearch(const QString& text) {
    chart_->setSearch(text);
}

void StackChartView::clear() {
    jobs_->drop();
    throttle_->stop();
    pending_ = false;
    stale_ = true;
    chart_->setChart(nullptr, 0);
    status_->clear();
}

void StackChartView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) request();
}

void StackChartView::onResultReady() {
    const ProfileFilter& f = controller_->filter();
    const bool sameFilter = controller_->modelSerial() == lastSerial_ &&
                            f.threads == lastThreads_ && f.hasRange == lastHasRange_ &&
                            f.startUs == lastStartUs_ && f.endUs == lastEndUs_ &&
                            controller_->transforms() == lastTransforms_;
    // More samples of the same view: wait until it is due. Another filter: now.
    const qint64 due = 3 * lastQueryMs_ - (sinceChart_.isValid() ? sinceChart_.elapsed() : 0);
    if (sameFilter && chart_->chart() && due > 0) {
        if (!throttle_->isActive()) throttle_->start(int(std::min<qint64>(due, 60'000)));
        return;
    }
    throttle_->stop();
    request();
}

bool StackChartView::window(uint64_t& startUs, uint64_t& endUs) const {
    const AnalysisResultPtr latest = controller_->latest();
    if (!latest || !latest->snapshot || latest->snapshot->recordedSamples == 0) return false;
    const ProfileSnapshot& s = *latest->snapshot;
    startUs = s.originUs;
    endUs = s.lastUs + std::max<uint64_t>(s.intervalUs, 1);
    if (timeline_ && timeline_->snapshot().originUs != 0) {
        startUs = timeline_->viewStartUs();
        endUs = timeline_->viewEndUs();
    }
    // The range in force, within the timeline's zoom when the two overlap.
    const ProfileFilter& f = controller_->filter();
    if (f.hasRange) {
        const uint64_t from = std::max(startUs, f.startUs), to = std::min(endUs, f.endUs);
        startUs = from < to ? from : f.startUs;
        endUs = from < to ? to : f.endUs;
    }
    return endUs > startUs;
}

void StackChartView::request() {
    const std::shared_ptr<ProfileModel> model = controller_->model();
    if (!model) return;
    if (!isVisible()) {
        stale_ = true; // computed when the tab is shown
        return;
    }
    if (jobs_->running()) {
        pending_ = true; // one job at a time; the newest request runs next
        return;
    }
    StackChartRequest r;
    if (!window(r.startUs, r.endUs)) return;
    r.threads = controller_->filter().threads;
    r.transforms = controller_->transforms();
    r.widthPx = uint32_t(std::max(1, scroll_->viewport()->width()));
    stale_ = false;
    const uint64_t serial = controller_->modelSerial();
    const ProfileFilter& f = controller_->filter();
    lastSerial_ = serial;
    lastThreads_ = f.threads;
    lastTransforms_ = r.transforms;
    lastHasRange_ = f.hasRange;
    lastStartUs_ = f.startUs;
    lastEndUs_ = f.endUs;
    queryClock_.start();
    using ChartPtr = std::shared_ptr<const StackChart>;
    jobs_->start<ChartPtr>(
        QString(),
        [model, r](const ProgressCallback&, const CancelToken* cancel) {
            return model->stackChart(r, cancel);
        },
        [this, serial](Result<ChartPtr> chart) {
            const bool again = std::exchange(pending_, false);
            lastQueryMs_ = queryClock_.elapsed();
            sinceChart_.start();
            if (chart)
                onChart(std::move(*chart), serial);
            else if (chart.error().kind != ErrorKind::Cancelled)
                status_->setText(tr("Stack chart failed: %1")
                                     .arg(QString::fromStdString(chart.error().message)));
            if (again) request();
        });
}

void StackChartView::onChart(std::shared_ptr<const StackChart> chart, uint64_t modelSerial) {
    const StackChart& c = *chart;
    // A collapsed module's function id moves as the recording finds functions: the
    // chart's per-id caches must not outlive such a chart (as AnalysisResult::modelSerial).
    if (c.functions.size() != c.recordedFunctions)
        modelSerial = (uint64_t{1} << 63) | (modelSerial << 32) | c.recordedFunctions;
    auto sec = [&c](uint64_t t) { return t > c.originUs ? double(t - c.originUs) / 1e6 : 0.0; };
    QLocale loc;
    QString text = tr("%1 – %2 s · %3 samples in view · %4")
                       .arg(sec(c.startUs), 0, 'f', 3)
                       .arg(sec(c.endUs), 0, 'f', 3)
                       .arg(loc.toString(qulonglong(c.samplesInView)))
                       .arg(controller_->filter().threads.empty()
                                ? tr("every thread")
                                : tr("%n selected thread(s)", nullptr,
                                     int(controller_->filter().threads.size())));
    if (c.lanesLeftOut)
        text += tr(" · %n less busy thread(s) not shown", nullptr, int(c.lanesLeftOut));
    status_->setText(text);
    chart_->setChart(std::move(chart), modelSerial);
    emit chartShown();
}

} // namespace gilscope::ui
