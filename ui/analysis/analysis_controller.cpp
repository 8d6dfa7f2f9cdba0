#include "ui/analysis/analysis_controller.h"

#include "core/analysis/profile_model.h"
#include "ui/job_runner.h"

#include <QThreadPool>
#include <QTimer>

namespace gilscope::ui {

namespace {

AnalysisResultPtr compute(const std::shared_ptr<ProfileModel>& model, const ProfileFilter& filter,
                          uint64_t generation, uint64_t modelSerial) {
    auto r = std::make_shared<AnalysisResult>();
    r->generation = generation;
    r->modelSerial = modelSerial;
    auto snap = model->query(filter);
    if (!snap) {
        r->error = QString::fromStdString(snap.error().message);
        return r;
    }
    r->snapshot = *snap;
    r->functions = functionTable(**snap);
    r->topDown = topDownTree(**snap);
    r->bottomUp = bottomUpTree(**snap);
    return r;
}

} // namespace

AnalysisController::AnalysisController(QObject* parent)
    : QObject(parent), liveTimer_(new QTimer(this)), jobs_(new JobRunner(this)) {
    qRegisterMetaType<AnalysisResultPtr>();
    liveTimer_->setInterval(250); // 4 Hz, like py-spy top
    connect(liveTimer_, &QTimer::timeout, this, &AnalysisController::refresh);
}

AnalysisController::~AnalysisController() = default;

bool AnalysisController::busy() const {
    return jobs_->running();
}

void AnalysisController::setModel(std::shared_ptr<ProfileModel> model, int pid, bool live) {
    model_ = std::move(model);
    ++modelSerial_;
    pid_ = pid;
    stack_.assign(1, Entry{});
    index_ = 0;
    latest_.reset();
    apply();
    setLive(live);
}

void AnalysisController::setLive(bool live) {
    if (live)
        liveTimer_->start();
    else
        liveTimer_->stop();
    refresh(); // the last samples, or the first
}

void AnalysisController::clear() {
    liveTimer_->stop();
    model_.reset();
    ++generation_;
    jobs_->drop(); // whatever is in flight is stale now
    pending_ = false;
    latest_.reset();
    emit cleared();
}

void AnalysisController::setState(StateFilter state) {
    if (filter_.state == state) return;
    filter_.state = state;
    emit filterChanged();
    refresh();
}

void AnalysisController::push(Entry e) {
    stack_.resize(index_ + 1);
    stack_.push_back(std::move(e));
    index_ = stack_.size() - 1;
    apply();
    refresh();
}

void AnalysisController::setRange(uint64_t startUs, uint64_t endUs) {
    Entry e = stack_[index_];
    e.hasRange = true;
    e.startUs = std::min(startUs, endUs);
    e.endUs = std::max(startUs, endUs);
    push(std::move(e));
}

void AnalysisController::setThreads(std::vector<uint64_t> threads) {
    Entry e = stack_[index_];
    e.threads = std::move(threads);
    push(std::move(e));
}

void AnalysisController::resetFilters() {
    push(Entry{});
}

void AnalysisController::back() {
    if (!canGoBack()) return;
    --index_;
    apply();
    refresh();
}

void AnalysisController::forward() {
    if (!canGoForward()) return;
    ++index_;
    apply();
    refresh();
}

void AnalysisController::apply() {
    const Entry& e = stack_[index_];
    filter_.hasRange = e.hasRange;
    filter_.startUs = e.startUs;
    filter_.endUs = e.endUs;
    filter_.threads = e.threads;
    emit filterChanged();
}

void AnalysisController::refresh() {
    if (!model_) return;
    ++generation_;
    if (jobs_->running()) {
        pending_ = true; // one query at a time; the newest request runs next
        return;
    }
    jobs_->start<AnalysisResultPtr>(
        QString(),
        [model = model_, filter = filter_, generation = generation_,
         serial = modelSerial_](const ProgressCallback&, const CancelToken*) {
            return Result<AnalysisResultPtr>(compute(model, filter, generation, serial));
        },
        [this](Result<AnalysisResultPtr> result) { onFinished(std::move(result).value()); });
}

void AnalysisController::onFinished(AnalysisResultPtr result) {
    if (pending_) {
        pending_ = false;
        --generation_; // refresh() counts it again
        refresh();
        return; // this result is older than what the user asked for since
    }
    if (!result || result->generation != generation_) return;
    publish(std::move(result));
}

void AnalysisController::publish(AnalysisResultPtr result) {
    AnalysisResultPtr previous = std::exchange(latest_, result);
    emit resultReady(result);
    // The views have let go of the previous result: its trees (thousands of small
    // vectors) are freed on a worker, not in the GUI thread's budget.
    if (previous)
        QThreadPool::globalInstance()->start(
            [previous = std::move(previous)]() mutable { previous.reset(); });
}

} // namespace gilscope::ui
