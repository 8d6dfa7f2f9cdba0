// JobRunner, the one background job of the GUI: typed results, progress in the dialog,
// a superseded or dropped job's result never delivered, cancel through the token (also
// from the dialog's button), and a destructor that cancels and waits. Workers block on
// semaphores the test releases, so the order of events is fixed, never left to timing.
#include "ui/job_runner.h"

#include <QProgressDialog>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QWidget>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace gilscope;
using gilscope::ui::JobRunner;

namespace {

constexpr int kTimeoutMs = 60000;

Status cancelledOr(const CancelToken* cancel, const char* otherwise) {
    return cancel->cancelled() ? Status(makeError(ErrorKind::Cancelled, "cancelled"))
                               : Status(makeError(ErrorKind::Internal, otherwise));
}

} // namespace

class TestJobRunner : public QObject {
    Q_OBJECT
private slots:
    // A job that throws still reports, as an internal error: a flow waiting on it (quit
    // after save) must not wait forever.
    void aThrowingJobReportsAnError() {
        JobRunner runner(nullptr);
        std::vector<std::string> got;
        runner.start<int>(
            QStringLiteral("work"),
            [](const ProgressCallback&, const CancelToken*) -> Result<int> {
                throw std::runtime_error("broken");
            },
            [&](Result<int> r) { got.push_back(r ? "ok" : r.error().message); });
        QTRY_COMPARE_WITH_TIMEOUT(got.size(), size_t(1), kTimeoutMs);
        QCOMPARE(got[0], std::string("broken"));
        QVERIFY(!runner.running());
    }

    // A move-only result comes back whole, on the GUI thread; progress reaches the
    // dialog through the 10 Hz poll.
    void deliversTypedResultAndProgress() {
        QWidget parent;
        JobRunner runner(nullptr, &parent);
        QSemaphore reported, gate;
        std::vector<std::string> got;
        Qt::HANDLE doneThread = nullptr;
        runner.start<std::unique_ptr<std::string>>(
            QStringLiteral("work"),
            [&](const ProgressCallback& p,
                const CancelToken*) -> Result<std::unique_ptr<std::string>> {
                p(5, 10);
                reported.release();
                gate.acquire();
                p(10, 10);
                return std::make_unique<std::string>("forty-two");
            },
            [&](Result<std::unique_ptr<std::string>> r) {
                doneThread = QThread::currentThreadId();
                got.push_back(r ? *r.value() : "error: " + r.error().message);
            });
        QVERIFY(runner.running());
        reported.acquire();
        auto* dialog = parent.findChild<QProgressDialog*>();
        QVERIFY(dialog);
        QTRY_COMPARE_WITH_TIMEOUT(dialog->value(), 500, kTimeoutMs);
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(got.size(), size_t(1), kTimeoutMs);
        QCOMPARE(got[0], std::string("forty-two"));
        QCOMPARE(doneThread, QThread::currentThreadId());
        QVERIFY(!runner.running());
        QVERIFY(!dialog->isVisible());
    }

    // The old job finishes after the new one; only the new one's result is delivered,
    // and the old one's token was set when it was superseded.
    void supersededResultIsDropped() {
        JobRunner runner(nullptr);
        QSemaphore gate;
        std::atomic<bool> oldSawCancel{false};
        std::vector<int> got;
        int dropped = 0;
        runner.start<int>(
            QStringLiteral("old"),
            [&](const ProgressCallback&, const CancelToken* c) -> Result<int> {
                gate.acquire();
                oldSawCancel = c->cancelled();
                return 1;
            },
            [&](Result<int> r) { got.push_back(r ? *r : -1); }, [&] { ++dropped; });
        const uint64_t oldGeneration = runner.generation();
        runner.start<int>(
            QStringLiteral("new"),
            [](const ProgressCallback&, const CancelToken*) -> Result<int> { return 2; },
            [&](Result<int> r) { got.push_back(r ? *r : -1); });
        QVERIFY(runner.generation() > oldGeneration);
        QTRY_COMPARE_WITH_TIMEOUT(got.size(), size_t(1), kTimeoutMs);
        QCOMPARE(got[0], 2);
        QVERIFY(!runner.running());
        QCOMPARE(runner.inFlight(), size_t(1)); // the old one, still blocked
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(dropped, 1, kTimeoutMs);
        QCOMPARE(got.size(), size_t(1));
        QVERIFY(oldSawCancel);
        QCOMPARE(runner.inFlight(), size_t(0));
    }

    // drop() without a new job: nothing runs any more, the result is not delivered.
    void droppedJobReportsNothing() {
        JobRunner runner(nullptr);
        QSemaphore gate;
        int done = 0, dropped = 0;
        runner.start<void>(
            QStringLiteral("dropped"),
            [&](const ProgressCallback&, const CancelToken* c) {
                gate.acquire();
                return cancelledOr(c, "not cancelled");
            },
            [&](Status) { ++done; }, [&] { ++dropped; });
        runner.drop();
        QVERIFY(!runner.running());
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(dropped, 1, kTimeoutMs);
        QCOMPARE(done, 0);
    }

    // cancel() sets the token the work polls; the job still reports, as Cancelled.
    void cancelReachesTheWork() {
        JobRunner runner(nullptr);
        QSemaphore gate;
        std::vector<ErrorKind> kinds;
        runner.start<void>(
            QStringLiteral("slow"),
            [&](const ProgressCallback&, const CancelToken* c) {
                gate.acquire();
                return cancelledOr(c, "never cancelled");
            },
            [&](Status s) { kinds.push_back(s ? ErrorKind::Internal : s.error().kind); });
        runner.cancel();
        QVERIFY(runner.running()); // until the work has noticed
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(kinds.size(), size_t(1), kTimeoutMs);
        QCOMPARE(kinds[0], ErrorKind::Cancelled);
        QVERIFY(!runner.running());
    }

    void cancelFromTheDialogStopsTheJob() {
        QWidget parent;
        JobRunner runner(nullptr, &parent);
        QSemaphore gate;
        std::vector<ErrorKind> kinds;
        runner.start<void>(
            QStringLiteral("slow"),
            [&](const ProgressCallback&, const CancelToken* c) {
                gate.acquire();
                return cancelledOr(c, "never cancelled");
            },
            [&](Status s) { kinds.push_back(s ? ErrorKind::Internal : s.error().kind); });
        auto* dialog = parent.findChild<QProgressDialog*>();
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isVisible(), kTimeoutMs); // after its minimum duration
        auto* cancelButton = dialog->findChild<QPushButton*>();
        QVERIFY(cancelButton);
        QTest::mouseClick(cancelButton, Qt::LeftButton);
        gate.release();
        QTRY_COMPARE_WITH_TIMEOUT(kinds.size(), size_t(1), kTimeoutMs);
        QCOMPARE(kinds[0], ErrorKind::Cancelled);
    }

    // onDone may start the next job (a save, then the open it was asked for).
    void onDoneCanStartTheNextJob() {
        JobRunner runner(nullptr);
        std::vector<int> got;
        const auto work = [](int v) {
            return [v](const ProgressCallback&, const CancelToken*) -> Result<int> { return v; };
        };
        runner.start<int>(QStringLiteral("first"), work(1), [&](Result<int> r) {
            got.push_back(*r);
            runner.start<int>(QStringLiteral("second"), work(2),
                              [&](Result<int> r2) { got.push_back(*r2); });
            QVERIFY(runner.running());
        });
        QTRY_COMPARE_WITH_TIMEOUT(got.size(), size_t(2), kTimeoutMs);
        QCOMPARE(got, (std::vector<int>{1, 2}));
        QVERIFY(!runner.running());
    }

    // Destroying the runner cancels the running job and returns only once it has
    // ended; neither callback runs.
    void destructorCancelsAndWaits() {
        auto runner = std::make_unique<JobRunner>(nullptr);
        QSemaphore started;
        std::atomic<bool> ended{false};
        int done = 0, dropped = 0;
        runner->start<void>(
            QStringLiteral("endless"),
            [&](const ProgressCallback&, const CancelToken* c) {
                started.release();
                while (!c->cancelled())
                    std::this_thread::yield(); // ends only when cancelled
                ended = true;
                return cancelledOr(c, "not cancelled");
            },
            [&](Status) { ++done; }, [&] { ++dropped; });
        started.acquire();
        QVERIFY(!ended);
        runner.reset();
        QVERIFY(ended);
        QCoreApplication::processEvents();
        QCOMPARE(done, 0);
        QCOMPARE(dropped, 0);
    }
};

QTEST_MAIN(TestJobRunner)
#include "test_job_runner.moc"
