#include "ui/progress_job.h"

#include <QProgressDialog>
#include <QTimer>
#include <QtConcurrent>

namespace gilscope::ui {

ProgressJob::ProgressJob(QWidget* dialogParent)
    : QObject(dialogParent), dialogParent_(dialogParent), timer_(new QTimer(this)) {
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, &ProgressJob::poll);
}

ProgressJob::~ProgressJob() {
    // The worker owns what it touches (shared pointers); cancel it and let it wind down.
    if (shared_) shared_->cancel.cancel();
    if (watcher_) {
        watcher_->disconnect(this);
        watcher_->waitForFinished();
    }
}

void ProgressJob::start(const QString& label, Work work) {
    cancel(); // a job still running is superseded
    const uint64_t generation = ++generation_;
    auto shared = std::make_shared<Shared>();
    shared_ = shared;
    running_ = true;

    if (!dialog_) {
        dialog_ = new QProgressDialog(dialogParent_);
        dialog_->setObjectName(QStringLiteral("progressDialog"));
        dialog_->setWindowModality(Qt::WindowModal);
        dialog_->setMinimumDuration(300);
        dialog_->setAutoClose(false);
        dialog_->setAutoReset(false);
        connect(dialog_, &QProgressDialog::canceled, this, &ProgressJob::cancel);
    }
    dialog_->setLabelText(label);
    dialog_->setRange(0, 1000);
    dialog_->setValue(0);

    auto* watcher = new QFutureWatcher<Outcome>(this);
    watcher_ = watcher;
    connect(watcher, &QFutureWatcher<Outcome>::finished, this,
            [this, generation, watcher] { onFinished(generation, watcher); });
    watcher->setFuture(QtConcurrent::run([shared, work = std::move(work)] {
        const ProgressCallback progress = [shared](uint64_t done, uint64_t total) {
            shared->done.store(done, std::memory_order_relaxed);
            shared->total.store(total, std::memory_order_relaxed);
        };
        const Status status = work(progress, &shared->cancel);
        if (status) return Outcome{};
        return Outcome{false, status.error().kind, QString::fromStdString(status.error().message)};
    }));
    timer_->start();
}

void ProgressJob::cancel() {
    if (shared_) shared_->cancel.cancel();
}

void ProgressJob::poll() {
    if (!shared_ || !dialog_) return;
    const uint64_t total = shared_->total.load(std::memory_order_relaxed);
    const uint64_t done = shared_->done.load(std::memory_order_relaxed);
    if (total > 0) dialog_->setValue(int(std::min<uint64_t>(1000, done * 1000 / total)));
}

void ProgressJob::onFinished(uint64_t generation, QFutureWatcher<Outcome>* watcher) {
    const Outcome outcome = watcher->result();
    if (watcher == watcher_) watcher_ = nullptr;
    watcher->deleteLater();
    if (generation != generation_) return; // a superseded job: its result no longer matters
    running_ = false;
    timer_->stop();
    if (dialog_) {
        dialog_->reset();
        dialog_->hide();
    }
    emit finished(outcome.ok, outcome.kind, outcome.message);
}

} // namespace gilscope::ui
