#include "ui/attach_job.h"

#include "ui/job_runner.h"

namespace gilscope::ui {

AttachJob::AttachJob(QObject* parent) : QObject(parent), runner_(new JobRunner(this)) {
}

AttachJob::~AttachJob() {
    delete runner_; // waits now, while the callbacks' `this` is still an AttachJob
}

void AttachJob::start(int pid, const SessionOptions& options) {
    pid_ = pid;
    using SessionPtr = std::shared_ptr<RecordingSession>;
    runner_->start<SessionPtr>(
        QString(),
        [pid, options](const ProgressCallback&, const CancelToken*) -> Result<SessionPtr> {
            auto opened = RecordingSession::open(pid, options);
            if (!opened) return opened.error();
            return SessionPtr(std::move(opened).value());
        },
        [this, pid](Result<SessionPtr> outcome) {
            pid_ = 0;
            if (outcome)
                emit attached(std::move(outcome).value());
            else
                emit failed(pid, outcome.error().kind,
                            QString::fromStdString(outcome.error().message));
        },
        [this, pid] { emit discarded(pid); });
}

void AttachJob::cancel() {
    runner_->drop();
    pid_ = 0;
}

} // namespace gilscope::ui
