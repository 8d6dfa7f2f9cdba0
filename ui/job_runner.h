#pragma once

#include "core/common/error.h"
#include "core/util/cancel.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QFutureWatcherBase;
class QProgressDialog;
class QTimer;
class QWidget;

namespace gilscope::ui {

// Runs the GUI's background work (export, save, load, attach, launch, process scans,
// analysis queries) on a
// worker thread, one current job at a time, as Hotspot's JobTracker: a typed Result<T>
// comes back to the GUI thread through onDone. Starting a job supersedes the current
// one: its CancelToken is set and its result is dropped, whenever it arrives (the
// generation id says which job is current). With a dialog parent, a QProgressDialog
// shows the current job, polled at 10 Hz from atomics (never one signal per item); its
// Cancel button sets the token. The destructor cancels every running job and waits.
class JobRunner : public QObject {
    Q_OBJECT
public:
    template <typename T>
    using Work = std::function<Result<T>(const ProgressCallback&, const CancelToken*)>;
    template <typename T>
    using OnDone = std::function<void(Result<T>)>;

    // dialogParent: where the progress dialog shows; none without one.
    explicit JobRunner(QObject* parent, QWidget* dialogParent = nullptr);
    ~JobRunner() override;

    // onDone runs on the GUI thread with the job's result (ErrorKind::Cancelled when it
    // noticed the token), unless another job was started or drop() was called since;
    // onDropped, if given, runs then instead, after the result has been destroyed.
    template <typename T>
    void start(const QString& label, Work<T> work, OnDone<T> onDone,
               std::function<void()> onDropped = {}) {
        auto slot = std::make_shared<std::optional<Result<T>>>();
        launch(
            label,
            [slot, work = std::move(work)](const ProgressCallback& p, const CancelToken* c) {
                // A job that throws still reports, or a flow waiting on it (quit after
                // save) would wait forever.
                try {
                    slot->emplace(work(p, c));
                } catch (const std::exception& e) {
                    slot->emplace(makeError(ErrorKind::Internal, e.what()));
                } catch (...) {
                    slot->emplace(makeError(ErrorKind::Internal, "unknown exception"));
                }
            },
            [slot, onDone = std::move(onDone), onDropped = std::move(onDropped)](bool current) {
                std::optional<Result<T>> result = std::exchange(*slot, std::nullopt);
                if (!current) {
                    result.reset(); // a stale result (a session, a file) goes now
                    if (onDropped) onDropped();
                } else if (result) {
                    onDone(std::move(*result));
                }
            });
    }

    bool running() const { return running_; } // the current job has not reported yet
    uint64_t generation() const { return generation_; }
    size_t inFlight() const { return watchers_.size(); } // current and stale jobs
    void cancel(); // asks the current job to stop; it still reports (Cancelled)
    void drop();   // cancels the current job and drops its result

private:
    struct Shared {
        CancelToken cancel;
        std::atomic<uint64_t> done{0};
        std::atomic<uint64_t> total{0};
    };
    using Run = std::function<void(const ProgressCallback&, const CancelToken*)>;

    void launch(const QString& label, Run run, std::function<void(bool current)> finished);
    void showDialog(const QString& label);
    void hideDialog();
    void poll();

    QWidget* dialogParent_;
    QPointer<QProgressDialog> dialog_; // a child of dialogParent_, which may go first
    QTimer* timer_;
    std::shared_ptr<Shared> shared_; // of the current job
    std::vector<QFutureWatcherBase*> watchers_;
    // Our own threads: a superseded job that does not notice its token (an attach, an
    // analysis query) keeps its thread until it ends, and a new job must never queue
    // behind it, as it would in a shared pool of one or two threads.
    QThreadPool pool_;
    uint64_t generation_ = 0;
    bool running_ = false;
};

} // namespace gilscope::ui
