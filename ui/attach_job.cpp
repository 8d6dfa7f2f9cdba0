#include "ui/attach_job.h"

#include <QtConcurrent>

#include <algorithm>

namespace gilscope::ui {

AttachJob::AttachJob(QObject* parent) : QObject(parent) {
}

AttachJob::~AttachJob() {
    for (Watcher* watcher : running_) {
        watcher->disconnect(this);
        watcher->waitForFinished();
    }
}

void AttachJob::start(int pid, const RecordingOptions& options) {
    const uint64_t generation = ++generation_;
    pid_ = pid;
    auto* watcher = new Watcher(this);
    running_.push_back(watcher);
    connect(watcher, &Watcher::finished, this,
            [this, generation, pid, watcher] { onFinished(generation, pid, watcher); });
    watcher->setFuture(QtConcurrent::run([pid, options] {
        auto opened = RecordingSession::open(pid, options);
        if (!opened) return Outcome{nullptr, opened.error()};
        return Outcome{std::shared_ptr<RecordingSession>(std::move(opened).value()), {}};
    }));
}

void AttachJob::cancel() {
    ++generation_;
    pid_ = 0;
}

void AttachJob::onFinished(uint64_t generation, int pid, Watcher* watcher) {
    // Taken out of the future, so dropping it below really destroys a stale session.
    Outcome outcome = watcher->future().takeResult();
    running_.erase(std::find(running_.begin(), running_.end(), watcher));
    watcher->deleteLater();
    if (generation != generation_) {
        outcome.session.reset();
        emit discarded(pid);
        return;
    }
    pid_ = 0;
    if (outcome.session)
        emit attached(std::move(outcome.session));
    else
        emit failed(pid, outcome.error.kind, QString::fromStdString(outcome.error.message));
}

} // namespace gilscope::ui
