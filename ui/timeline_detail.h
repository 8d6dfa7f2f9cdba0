#pragma once

#include "core/analysis/track_columns.h"

#include <QObject>

#include <memory>

namespace gilscope {
class ProfileModel;
}

namespace gilscope::ui {

class JobRunner;
class TimelineWidget;

// Gives the timeline the exact columns of its view (ProfileModel::trackColumns) whenever
// the view is finer than the timeline's buckets: zoomed in, down to single samples. The
// model is asked off the GUI thread; a newer view or more samples (a live recording, a
// file still being read) supersede the request in flight.
class TimelineDetail : public QObject {
    Q_OBJECT
public:
    TimelineDetail(TimelineWidget* timeline, QObject* parent);

    void setModel(std::shared_ptr<ProfileModel> model);
    // The view, its width or the data may have changed: asks again if so.
    void refresh();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    TimelineWidget* timeline_;
    std::shared_ptr<ProfileModel> model_;
    JobRunner* jobs_;
    TrackColumnsRequest asked_;
    uint64_t askedSamples_ = 0;
};

} // namespace gilscope::ui
