#include "ui/analysis/compare_controller.h"

#include "core/analysis/profile_model.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/job_runner.h"

#include <algorithm>

namespace gilscope::ui {

CompareController::CompareController(AnalysisController* analysis, QWidget* dialogParent,
                                     QObject* parent)
    : QObject(parent), analysis_(analysis), loader_(new JobRunner(this, dialogParent)),
      queries_(new JobRunner(this)) {
    qRegisterMetaType<ComparisonPtr>();
    connect(analysis_, &AnalysisController::filterChanged, this, &CompareController::recompute);
    connect(analysis_, &AnalysisController::resultReady, this, &CompareController::onResult);
}

CompareController::~CompareController() = default;

void CompareController::loadBaseline(const QString& path) {
    loader_->start<std::shared_ptr<const Baseline>>(
        tr("Loading baseline %1").arg(path),
        [path](const ProgressCallback& progress,
               const CancelToken* cancel) -> Result<std::shared_ptr<const Baseline>> {
            auto file = loadProfileFile(path.toStdString(), progress, cancel);
            if (!file) return file.error();
            auto all = file->model->query({}, cancel);
            if (!all) return all.error();
            auto b = std::make_shared<Baseline>();
            b->path = path;
            b->model = file->model;
            b->mode = file->info.mode;
            b->originUs = (*all)->originUs;
            b->lastUs = (*all)->lastUs;
            for (const ProfileThread& t : (*all)->threads)
                b->threads.push_back(t.threadId);
            return std::shared_ptr<const Baseline>(std::move(b));
        },
        [this](Result<std::shared_ptr<const Baseline>> loaded) {
            if (!loaded) {
                if (loaded.error().kind != ErrorKind::Cancelled)
                    emit loadFailed(QString::fromStdString(loaded.error().message));
                return;
            }
            // Recordings that sampled different threads never compare: refuse at once.
            const std::optional<int> current =
                currentMode_ < 0 ? std::nullopt : std::optional(currentMode_);
            if (auto why = incomparableReason((*loaded)->mode, current, StateFilter::All)) {
                emit loadFailed(tr("Cannot compare: %1.").arg(QString::fromStdString(*why)));
                return;
            }
            baseline_ = std::move(loaded).value();
            recompute();
        });
}

void CompareController::clear() {
    loader_->drop();
    queries_->drop();
    baseline_.reset();
    comparison_.reset();
    emit comparisonChanged(nullptr);
}

void CompareController::onResult(const AnalysisResultPtr& result) {
    // A new recording shown (or its first result): check its mode against the baseline.
    const int mode = result && result->snapshot ? result->snapshot->recordedMode : -1;
    if (mode == currentMode_) return;
    currentMode_ = mode;
    recompute();
}

void CompareController::recompute() {
    if (!baseline_) return;
    queries_->start<ComparisonPtr>(
        QString(),
        [baseline = baseline_, filter = analysis_->filter(), transforms = analysis_->transforms(),
         mode = currentMode_](const ProgressCallback&,
                              const CancelToken* cancel) -> Result<ComparisonPtr> {
            auto c = std::make_shared<Comparison>();
            c->baselinePath = baseline->path;
            const std::optional<int> current = mode < 0 ? std::nullopt : std::optional(mode);
            if (auto why = incomparableReason(baseline->mode, current, filter.state)) {
                c->refusal = QString::fromStdString(*why);
                return ComparisonPtr(std::move(c));
            }
            // Thread ids and times only mean something within one recording: they filter
            // the baseline when it has them, as `diff` cannot know better either.
            ProfileFilter f;
            f.state = filter.state;
            const auto& have = baseline->threads;
            if (!filter.threads.empty() &&
                std::all_of(filter.threads.begin(), filter.threads.end(), [&](uint64_t t) {
                    return std::find(have.begin(), have.end(), t) != have.end();
                })) {
                f.threads = filter.threads;
                c->threadsApplied = true;
            }
            if (filter.hasRange && filter.startUs <= baseline->lastUs &&
                filter.endUs > baseline->originUs) {
                f.hasRange = true;
                f.startUs = filter.startUs;
                f.endUs = filter.endUs;
                c->rangeApplied = true;
            }
            auto snap = baseline->model->query(f, cancel);
            if (!snap) return snap.error();
            // The same transforms as the current side, so the same call paths compare.
            auto shown = applyTransforms(*snap, transforms, cancel);
            if (!shown) return makeError(ErrorKind::Cancelled, "cancelled");
            c->baseline = shareTable(**shown);
            return ComparisonPtr(std::move(c));
        },
        [this](Result<ComparisonPtr> done) {
            if (!done) {
                if (done.error().kind != ErrorKind::Cancelled)
                    emit loadFailed(QString::fromStdString(done.error().message));
                return;
            }
            comparison_ = std::move(done).value();
            emit comparisonChanged(comparison_);
        });
}

} // namespace gilscope::ui
