#pragma once

#include "core/common/error.h"
#include "core/session/recording_session.h"

#include <QObject>
#include <QString>

#include <memory>

namespace gilscope::ui {

class JobRunner;

// Opens a RecordingSession on a worker thread (a JobRunner without dialog): attaching
// reads the target's ELF symbols and locates _PyRuntime, which can take hundreds of
// milliseconds the window must not freeze for. A cancelled or superseded attach is
// harmless: its session (which never sampled) is destroyed and only discarded() is
// emitted.
class AttachJob : public QObject {
    Q_OBJECT
public:
    explicit AttachJob(QObject* parent = nullptr);
    ~AttachJob() override; // waits for running attaches: they only read their target

    void start(int pid, const SessionOptions& options); // supersedes a pending one
    void cancel();                                      // drops the pending attach
    bool busy() const { return pid_ != 0; }
    int pid() const { return pid_; } // of the pending attach, or 0

signals:
    void attached(std::shared_ptr<gilscope::RecordingSession> session);
    void failed(int pid, gilscope::ErrorKind kind, const QString& message);
    void discarded(int pid); // a stale attach ended; its session, if any, is gone

private:
    JobRunner* runner_;
    int pid_ = 0;
};

} // namespace gilscope::ui
