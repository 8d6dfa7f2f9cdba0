#pragma once

#include "core/common/error.h"
#include "core/util/cancel.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QProgressDialog;
class QTimer;
class QWidget;

namespace gilscope::ui {

// Runs one long job (export, file load) on a worker thread behind a QProgressDialog.
// Cancel sets the job's CancelToken. Progress is polled at 10 Hz from atomics, never
// one signal per item. A generation counter makes results of a superseded job
// harmless: only the newest job's finished() is emitted.
class ProgressJob : public QObject {
    Q_OBJECT
public:
    using Work = std::function<Status(const ProgressCallback&, const CancelToken*)>;

    explicit ProgressJob(QWidget* dialogParent);
    ~ProgressJob() override;

    void start(const QString& label, Work work);
    bool running() const { return running_; }
    void cancel();

signals:
    // ok, or the error (kind Cancelled when the user cancelled).
    void finished(bool ok, gilscope::ErrorKind kind, const QString& message);

private:
    struct Shared {
        CancelToken cancel;
        std::atomic<uint64_t> done{0};
        std::atomic<uint64_t> total{0};
    };
    struct Outcome {
        bool ok = true;
        ErrorKind kind = ErrorKind::Internal;
        QString message;
    };

    void poll();
    void onFinished(uint64_t generation, QFutureWatcher<Outcome>* watcher);

    QWidget* dialogParent_;
    QProgressDialog* dialog_ = nullptr;
    QTimer* timer_;
    std::shared_ptr<Shared> shared_;
    QFutureWatcher<Outcome>* watcher_ = nullptr;
    uint64_t generation_ = 0;
    bool running_ = false;
};

} // namespace gilscope::ui
