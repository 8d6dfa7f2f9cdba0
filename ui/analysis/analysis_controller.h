#pragma once

#include "core/analysis/call_transforms.h"
#include "core/analysis/profile_filter.h"
#include "core/common/error.h"
#include "core/heatmap/source_text.h"
#include "ui/analysis/analysis_result.h"

#include <QObject>

#include <memory>
#include <vector>

class QTimer;

namespace gilscope {
class ProfileModel;
}

namespace gilscope::ui {

class JobRunner;

// Owns the filter every analysis view shares (state, threads, time range) and a
// filter/zoom stack with back and forward, as Hotspot's FilterAndZoomStack. Queries run
// on a worker thread; results come back through resultReady() tagged with a generation,
// and a result older than the latest request is dropped (a JobRunner without dialog).
// While recording it re-queries four times a second, one query at a time.
class AnalysisController : public QObject {
    Q_OBJECT
public:
    explicit AnalysisController(QObject* parent = nullptr);
    ~AnalysisController() override;

    // process: the recorded process, whose sources are read through its door (null: a
    // recording opened from a file, whose sources are this machine's); live: refresh
    // periodically until setLive(false).
    void setModel(std::shared_ptr<ProfileModel> model,
                  std::shared_ptr<const target::AttachedProcess> process, bool live);
    void setLive(bool live);
    void clear();
    bool hasModel() const { return model_ != nullptr; }
    // The recording queried, and which one it is (counts setModel()), for views that
    // run their own queries on it (the stack chart).
    std::shared_ptr<ProfileModel> model() const { return model_; }
    uint64_t modelSerial() const { return modelSerial_; }
    // The recording's source files, each read once.
    heatmap::SourceCache& sources() const { return *sources_; }

    const ProfileFilter& filter() const { return filter_; }
    StateFilter state() const { return filter_.state; }
    void setState(StateFilter state);
    // Pushes a new entry on the stack (dropping any forward entries).
    void setRange(uint64_t startUs, uint64_t endUs);
    void setThreads(std::vector<uint64_t> threads);
    void resetFilters(); // pushes an entry without range or thread filter (transforms stay)
    // The call-tree transforms every view shows (call_transforms.h), applied after the
    // filter; each change is an entry of the same back/forward stack.
    const TransformStack& transforms() const { return stack_[index_].transforms; }
    void addTransform(CallTransform t);
    void removeTransform(size_t index);
    void clearTransforms();
    // Counts only the samples with this label (a labelFrameName(); empty: all), in place
    // of the label filter there was: one entry of the stack.
    void setLabelFilter(const std::string& labelFrame);
    bool inverted() const;
    void setInverted(bool inverted); // adds an Invert, or removes the one there is
    bool canGoBack() const { return index_ > 0; }
    bool canGoForward() const { return index_ + 1 < stack_.size(); }
    void back();
    void forward();

    AnalysisResultPtr latest() const { return latest_; }
    // The newest request's generation: a result with it answers what was asked last.
    uint64_t generation() const { return generation_; }
    // Hands a computed result to the views (resultReady), as a finished query does.
    // Public for the GUI-update benchmark, which computes its results beforehand.
    void publish(AnalysisResultPtr result);
    bool busy() const;

    // The end of a query job: its result, or its error (a query that failed or threw)
    // as a result the views show for that request; never an exception in a slot.
    static AnalysisResultPtr resultOf(Result<AnalysisResultPtr> job, uint64_t generation,
                                      uint64_t modelSerial);

public slots:
    void refresh();

signals:
    void resultReady(gilscope::ui::AnalysisResultPtr result);
    void filterChanged();
    // A new filter or transform was asked for: until resultReady with generation(), what
    // the views show answers an older request.
    void requested();
    void cleared(); // the recording is gone from the views

private:
    struct Entry {
        bool hasRange = false;
        uint64_t startUs = 0, endUs = UINT64_MAX;
        std::vector<uint64_t> threads;
        TransformStack transforms;
    };
    void push(Entry e);
    void apply();
    void onFinished(AnalysisResultPtr result);
    void requery(); // the filter changed: now, superseding a running query
    void start();

    std::shared_ptr<ProfileModel> model_;
    std::shared_ptr<heatmap::SourceCache> sources_ =
        std::make_shared<heatmap::SourceCache>(nullptr);
    ProfileFilter filter_;
    std::vector<Entry> stack_{Entry{}};
    size_t index_ = 0;
    uint64_t generation_ = 0;
    uint64_t modelSerial_ = 0; // counts setModel(): see AnalysisResult::modelSerial
    bool pending_ = false;
    AnalysisResultPtr latest_;
    QTimer* liveTimer_;
    JobRunner* jobs_;
    JobRunner* disposal_; // frees old results off the GUI thread
};

} // namespace gilscope::ui
