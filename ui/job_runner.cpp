#include "ui/job_runner.h"

#include <QFutureWatcher>
#include <QProgressDialog>
#include <QTimer>
#include <QtConcurrent>

#include <algorithm>

namespace gilscope::ui {

JobRunner::JobRunner(QObject* parent, QWidget* dialogParent)
    : QObject(parent), dialogParent_(dialogParent), timer_(new QTimer(this)) {
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, &JobRunner::poll);
    pool_.setMaxThreadCount(16); // jobs are few; stale ones only wait to end
}

JobRunner::~JobRunner() {
    // Each worker holds what it touches (shared pointers); stale ones were cancelled
    // when they were superseded. Nothing reports any more: the callbacks may refer to
    // an owner being destroyed.
    if (shared_) shared_->cancel.cancel();
    for (QFutureWatcherBase* watcher : watchers_) {
        watcher->disconnect(this);
        watcher->waitForFinished();
    }
}

void JobRunner::launch(const QString& label, Run run, std::function<void(bool)> finished) {
    if (shared_) shared_->cancel.cancel(); // superseded: its result will be dropped
    const uint64_t generation = ++generation_;
    auto shared = std::make_shared<Shared>();
    shared_ = shared;
    running_ = true;
    if (dialogParent_) showDialog(label);

    auto* watcher = new QFutureWatcher<void>(this);
    watchers_.push_back(watcher);
    connect(watcher, &QFutureWatcher<void>::finished, this,
            [this, generation, watcher, finished = std::move(finished)] {
                watchers_.erase(std::find(watchers_.begin(), watchers_.end(), watcher));
                watcher->deleteLater();
                const bool current = generation == generation_;
                if (current) {
                    running_ = false;
                    shared_.reset();
                    hideDialog();
                }
                finished(current); // may start the next job
            });
    watcher->setFuture(QtConcurrent::run(&pool_, [shared, run = std::move(run)] {
        const ProgressCallback progress = [shared](uint64_t done, uint64_t total) {
            shared->done.store(done, std::memory_order_relaxed);
            shared->total.store(total, std::memory_order_relaxed);
        };
        run(progress, &shared->cancel);
    }));
}

void JobRunner::cancel() {
    if (shared_) shared_->cancel.cancel();
}

void JobRunner::drop() {
    cancel();
    ++generation_; // whatever is running is stale now
    running_ = false;
    shared_.reset();
    hideDialog();
}

void JobRunner::showDialog(const QString& label) {
    if (!dialog_) {
        dialog_ = new QProgressDialog(dialogParent_);
        dialog_->setObjectName(QStringLiteral("progressDialog"));
        dialog_->setWindowModality(Qt::WindowModal);
        dialog_->setMinimumDuration(300);
        dialog_->setAutoClose(false);
        dialog_->setAutoReset(false);
        connect(dialog_, &QProgressDialog::canceled, this, &JobRunner::cancel);
    }
    dialog_->setLabelText(label);
    dialog_->setRange(0, 1000);
    dialog_->setValue(0);
    timer_->start();
}

void JobRunner::hideDialog() {
    timer_->stop();
    if (!dialog_) return;
    dialog_->reset();
    dialog_->hide();
}

void JobRunner::poll() {
    if (!shared_ || !dialog_) return;
    const uint64_t total = shared_->total.load(std::memory_order_relaxed);
    const uint64_t done = shared_->done.load(std::memory_order_relaxed);
    if (total > 0) dialog_->setValue(int(std::min<uint64_t>(1000, done * 1000 / total)));
}

} // namespace gilscope::ui
