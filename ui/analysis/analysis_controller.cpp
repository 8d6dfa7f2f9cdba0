#include "ui/analysis/analysis_controller.h"

#include "core/sample/sample_label.h"

#include "core/analysis/profile_model.h"
#include "ui/job_runner.h"

#include <QTimer>

namespace gilscope::ui {

namespace {

AnalysisResultPtr compute(const std::shared_ptr<ProfileModel>& model, const ProfileFilter& filter,
                          const TransformStack& transforms, uint64_t generation,
                          uint64_t modelSerial, const CancelToken* cancel) {
    auto r = std::make_shared<AnalysisResult>();
    r->generation = generation;
    r->modelSerial = modelSerial;
    // The token: a query superseded by a newer one stops scanning at once.
    auto snap = model->query(filter, cancel);
    if (!snap) {
        r->error = QString::fromStdString(snap.error().message);
        return r;
    }
    const size_t recorded = (*snap)->functions.size();
    auto shown = applyTransforms(*snap, transforms, cancel);
    if (!shown) {
        r->error = QStringLiteral("cancelled");
        return r;
    }
    // A collapsed module is a function appended after the recording's own: its id moves
    // when the recording finds new functions, so the views must not keep what they
    // learnt per id (names, colours) across such results.
    if (transformsAddFunctions(transforms))
        r->modelSerial = (uint64_t{1} << 63) | (modelSerial << 32) | recorded;
    r->snapshot = *shown;
    const ProfileSnapshot& s = **shown;
    CallTree topDown = topDownTree(s);
    r->functions = functionTable(s, topDown);
    r->topDown = s.inverted ? bottomUpTree(s) : std::move(topDown);
    r->bottomUp = s.inverted ? std::move(topDown) : bottomUpTree(s);
    return r;
}

} // namespace

AnalysisResultPtr AnalysisController::resultOf(Result<AnalysisResultPtr> job, uint64_t generation,
                                               uint64_t modelSerial) {
    if (job && *job) return std::move(*job);
    auto r = std::make_shared<AnalysisResult>();
    r->generation = generation;
    r->modelSerial = modelSerial;
    r->error = job ? QStringLiteral("the analysis query returned nothing")
                   : QString::fromStdString(job.error().message);
    return r;
}

AnalysisController::AnalysisController(QObject* parent)
    : QObject(parent), liveTimer_(new QTimer(this)), jobs_(new JobRunner(this)),
      disposal_(new JobRunner(this)) {
    qRegisterMetaType<AnalysisResultPtr>();
    liveTimer_->setInterval(250); // 4 Hz, like py-spy top
    connect(liveTimer_, &QTimer::timeout, this, &AnalysisController::refresh);
}

AnalysisController::~AnalysisController() = default;

bool AnalysisController::busy() const {
    return jobs_->running();
}

void AnalysisController::setModel(std::shared_ptr<ProfileModel> model,
                                  std::shared_ptr<const target::AttachedProcess> process,
                                  bool live) {
    model_ = std::move(model);
    ++modelSerial_;
    sources_ = std::make_shared<heatmap::SourceCache>(std::move(process));
    stack_.assign(1, Entry{});
    index_ = 0;
    latest_.reset();
    apply();
    if (live)
        liveTimer_->start();
    else
        liveTimer_->stop();
    requery();
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
    requery();
}

void AnalysisController::push(Entry e) {
    stack_.resize(index_ + 1);
    stack_.push_back(std::move(e));
    index_ = stack_.size() - 1;
    apply();
    requery();
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
    Entry e;
    e.transforms = transforms();
    push(std::move(e));
}

void AnalysisController::addTransform(CallTransform t) {
    Entry e = stack_[index_];
    e.transforms.push_back(std::move(t));
    push(std::move(e));
}

void AnalysisController::removeTransform(size_t index) {
    Entry e = stack_[index_];
    if (index >= e.transforms.size()) return;
    e.transforms.erase(e.transforms.begin() + static_cast<ptrdiff_t>(index));
    push(std::move(e));
}

void AnalysisController::clearTransforms() {
    if (transforms().empty()) return;
    Entry e = stack_[index_];
    e.transforms.clear();
    push(std::move(e));
}

void AnalysisController::setLabelFilter(const std::string& labelFrame) {
    Entry e = stack_[index_];
    const auto isLabel = [](const CallTransform& t) {
        return t.kind == TransformKind::FocusFunction &&
               labelOfFrame(t.function.file, t.function.name).has_value();
    };
    const size_t had = e.transforms.size();
    std::erase_if(e.transforms, isLabel);
    if (labelFrame.empty() && e.transforms.size() == had) return; // none to drop
    if (!labelFrame.empty())
        e.transforms.push_back(CallTransform{
            TransformKind::FocusFunction, {labelFrame, std::string(kLabelFile)}, {}, {}});
    push(std::move(e));
}

bool AnalysisController::inverted() const {
    bool inverted = false;
    for (const CallTransform& t : transforms())
        inverted ^= t.kind == TransformKind::Invert;
    return inverted;
}

void AnalysisController::setInverted(bool invert) {
    if (invert == inverted()) return;
    const TransformStack& ts = transforms();
    for (size_t i = ts.size(); i-- > 0;)
        if (ts[i].kind == TransformKind::Invert) return removeTransform(i);
    addTransform(CallTransform{TransformKind::Invert, {}, {}, {}});
}

void AnalysisController::back() {
    if (!canGoBack()) return;
    --index_;
    apply();
    requery();
}

void AnalysisController::forward() {
    if (!canGoForward()) return;
    ++index_;
    apply();
    requery();
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
        pending_ = true; // live updates: one query at a time; the newest runs next
        return;
    }
    start();
}

void AnalysisController::requery() {
    if (!model_) return;
    ++generation_;
    pending_ = false;
    start(); // supersedes a running query: its token stops its scan, its result is dropped
    emit requested();
}

void AnalysisController::start() {
    const uint64_t generation = generation_, serial = modelSerial_;
    jobs_->start<AnalysisResultPtr>(
        QString(),
        [model = model_, filter = filter_, transforms = transforms(), generation,
         serial](const ProgressCallback&, const CancelToken* cancel) {
            return Result<AnalysisResultPtr>(
                compute(model, filter, transforms, generation, serial, cancel));
        },
        [this, generation, serial](Result<AnalysisResultPtr> result) {
            onFinished(resultOf(std::move(result), generation, serial));
        });
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
        disposal_->start<bool>(
            QString(),
            [previous = std::move(previous)](const ProgressCallback&, const CancelToken*) mutable {
                previous.reset();
                return Result<bool>(true);
            },
            [](Result<bool>) {});
}

} // namespace gilscope::ui
