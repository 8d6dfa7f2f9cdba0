// The window's parts on their own: ProgressJob's cancel and stale-result guard,
// AttachJob's stale-result guard, the process model's incremental merge keeping the
// view's selection, and the timeline actually painting its lanes.
#include "core/live/live_timeline.h"
#include "ui/attach_job.h"
#include "ui/process_table_model.h"
#include "ui/progress_job.h"
#include "ui/timeline_widget.h"

#include <QFutureWatcher>
#include <QImage>
#include <QItemSelectionModel>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QWidget>

#include <chrono>
#include <thread>

using namespace gilscope;
using gilscope::ui::ProgressJob;

namespace {

Status waitForCancel(const CancelToken* cancel) {
    for (int i = 0; i < 1000 && !cancel->cancelled(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return cancel->cancelled() ? Status(makeError(ErrorKind::Cancelled, "cancelled"))
                               : Status(makeError(ErrorKind::Internal, "never cancelled"));
}

PythonProcessInfo proc(int pid) {
    PythonProcessInfo p;
    p.pid = pid;
    p.executable = "/usr/bin/python3.11";
    p.version = "3.11.2";
    p.canAttach = true;
    return p;
}

} // namespace

class TestUiParts : public QObject {
    Q_OBJECT
private slots:
    void jobReportsProgressAndResult() {
        QWidget parent;
        ProgressJob job(&parent);
        QSignalSpy finished(&job, &ProgressJob::finished);
        job.start(QStringLiteral("work"), [](const ProgressCallback& p, const CancelToken*) {
            for (uint64_t i = 0; i <= 10; ++i)
                p(i, 10);
            return Status{};
        });
        QVERIFY(job.running());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(finished.at(0).at(0).toBool());
        QVERIFY(!job.running());
    }

    void cancelFromTheDialogStopsTheJob() {
        QWidget parent;
        ProgressJob job(&parent);
        QSignalSpy finished(&job, &ProgressJob::finished);
        job.start(QStringLiteral("slow"),
                  [](const ProgressCallback&, const CancelToken* c) { return waitForCancel(c); });
        auto* dialog = parent.findChild<QProgressDialog*>();
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->isVisible(), 60000); // shown after its minimum duration
        auto* cancelButton = dialog->findChild<QPushButton*>();
        QVERIFY(cancelButton);
        QTest::mouseClick(cancelButton, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(!finished.at(0).at(0).toBool());
        QCOMPARE(finished.at(0).at(1).value<ErrorKind>(), ErrorKind::Cancelled);
    }

    // A superseded job's result must not be reported as the new job's.
    void staleResultIsIgnored() {
        QWidget parent;
        ProgressJob job(&parent);
        QSignalSpy finished(&job, &ProgressJob::finished);
        job.start(QStringLiteral("old"), [](const ProgressCallback&, const CancelToken* c) {
            waitForCancel(c);
            std::this_thread::sleep_for(std::chrono::milliseconds(200)); // finishes last
            return Status(makeError(ErrorKind::Io, "stale failure"));
        });
        job.start(QStringLiteral("new"),
                  [](const ProgressCallback&, const CancelToken*) { return Status{}; });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        // Each job's watcher deletes itself once its result has been handled: when none
        // is left, the old job has finished too, and its result was dropped.
        QTRY_VERIFY_WITH_TIMEOUT(job.findChildren<QFutureWatcherBase*>().isEmpty(), 60000);
        QCOMPARE(finished.count(), 1);
        QVERIFY(finished.at(0).at(0).toBool());
    }

    // A cancelled attach's result is dropped; only the newest attach reports. Pids
    // above any pid_max fail on the worker like a process that is gone.
    void attachReportsOnlyTheNewestAttach() {
        gilscope::ui::AttachJob job;
        QSignalSpy attached(&job, &gilscope::ui::AttachJob::attached);
        QSignalSpy failed(&job, &gilscope::ui::AttachJob::failed);
        QSignalSpy discarded(&job, &gilscope::ui::AttachJob::discarded);
        job.start(4194305, RecordingOptions{});
        QVERIFY(job.busy());
        QCOMPARE(job.pid(), 4194305);
        job.cancel();
        QVERIFY(!job.busy());
        job.start(4194306, RecordingOptions{});
        QCOMPARE(job.pid(), 4194306);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(discarded.count(), 1, 60000);
        QCOMPARE(failed.at(0).at(0).toInt(), 4194306);
        QCOMPARE(failed.at(0).at(1).value<ErrorKind>(), ErrorKind::ProcessNotFound);
        QVERIFY(!failed.at(0).at(2).toString().isEmpty());
        QCOMPARE(discarded.at(0).at(0).toInt(), 4194305);
        QCOMPARE(attached.count(), 0);
        QVERIFY(!job.busy());
    }

    void mergeKeepsSelection() {
        gilscope::ui::ProcessTableModel model;
        model.setProcesses({proc(10), proc(20), proc(30)});
        QTableView view;
        view.setModel(&model);
        view.selectionModel()->setCurrentIndex(
            model.index(2, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setProcesses({proc(40), proc(30), proc(10)}); // 20 gone, 40 new
        QCOMPARE(resets.count(), 0);
        QCOMPARE(model.rowCount(), 3);
        const QModelIndex current = view.selectionModel()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.data(gilscope::ui::ProcessTableModel::PidRole).toInt(), 30);
        QVERIFY(view.selectionModel()->isRowSelected(current.row(), {}));
    }

    void cannotAttachRowSaysWhy() {
        gilscope::ui::ProcessTableModel model;
        auto p = proc(5);
        p.canAttach = false;
        p.reason = "owned by another user; run as root";
        model.setProcesses({p});
        const QString text =
            model.index(0, gilscope::ui::ProcessTableModel::CanAttach).data().toString();
        QVERIFY2(text.contains(QStringLiteral("another user")), qPrintable(text));
    }

    void timelinePaintsLanes() {
        gilscope::TimelineSnapshot s;
        s.bucketUs = 100'000;
        s.spanUs = 1'000'000;
        s.samples = 100;
        gilscope::ThreadTimeline t;
        t.threadId = 42;
        t.mainThread = true;
        t.samples = 100;
        t.buckets.resize(10);
        for (auto& b : t.buckets) {
            b.samples = 10;
            b.hasGil = 10; // fully green lane
        }
        s.threads = {t, t};
        s.threads[1].mainThread = false;
        gilscope::ui::TimelineWidget widget;
        const int emptyHeight = widget.sizeHint().height();
        widget.setSnapshot(s);
        QVERIFY(widget.sizeHint().height() > emptyHeight);
        widget.resize(800, widget.sizeHint().height());
        const QImage image = widget.grab().toImage();
        int green = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 200; x < image.width(); ++x)
                if (image.pixelColor(x, y) == QColor(46, 160, 67)) ++green;
        QVERIFY2(green > 1000, qPrintable(QString::number(green))); // two full lanes
    }
};

QTEST_MAIN(TestUiParts)
#include "test_ui_parts.moc"
