#include "ui/timeline_detail.h"

#include "core/analysis/profile_model.h"
#include "ui/job_runner.h"
#include "ui/timeline_widget.h"

#include <QEvent>

namespace gilscope::ui {

TimelineDetail::TimelineDetail(TimelineWidget* timeline, QObject* parent)
    : QObject(parent), timeline_(timeline), jobs_(new JobRunner(this)) {
    connect(timeline_, &TimelineWidget::viewChanged, this, &TimelineDetail::refresh);
    timeline_->installEventFilter(this); // a new width is a new view
}

void TimelineDetail::setModel(std::shared_ptr<ProfileModel> model) {
    model_ = std::move(model);
    asked_ = {};
    askedSamples_ = 0;
    jobs_->drop();
    timeline_->setDetail(nullptr);
    refresh();
}

void TimelineDetail::refresh() {
    if (!model_ || !timeline_->detailWanted()) return;
    const TrackColumnsRequest request = timeline_->viewRequest();
    const uint64_t samples = model_->sampleCount();
    if (request == asked_ && samples == askedSamples_) return;
    asked_ = request;
    askedSamples_ = samples;
    using Columns = std::shared_ptr<const TrackColumns>;
    jobs_->start<Columns>(
        QString(),
        [model = model_, request](const ProgressCallback&, const CancelToken* cancel) {
            return model->trackColumns(request, cancel);
        },
        [this](Result<Columns> columns) {
            if (columns) timeline_->setDetail(std::move(*columns));
        });
}

bool TimelineDetail::eventFilter(QObject* watched, QEvent* event) {
    if (watched == timeline_ && event->type() == QEvent::Resize) refresh();
    return QObject::eventFilter(watched, event);
}

} // namespace gilscope::ui
