// The selection belongs to the pid the user picked: one click enables Record and
// Ctrl+R or Space records that pid; a rescan that brings a new process moves neither
// the selection nor the row under the pointer; a selected process that exits clears the
// selection, and the window says so. Real Python targets, offscreen widgets.
#include "tests/support/python_interpreters.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/process_table_model.h"

#include <QAction>
#include <QApplication>
#include <QEnterEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <algorithm>
#include <vector>

using gilscope::test::TargetProcess;
using gilscope::ui::MainWindow;
using gilscope::ui::ProcessPicker;

namespace {

struct Harness {
    MainWindow window;
    QStringList errors;
    Harness() {
        window.prompts().showMessage = [this](MainWindow::MessageKind, const QString&,
                                              const QString& m) { errors.append(m); };
        window.prompts().askSavePath = [](const QString&, const QString&, const QString&) {
            return QString();
        };
        window.prompts().askOpenPath = [] { return QString(); };
        window.prompts().askUnsaved = [](const QString&, bool) {
            return MainWindow::UnsavedChoice::Discard;
        };
        window.resize(1000, 700);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
    }
    ProcessPicker* picker() { return window.picker(); }
    QTableView* view() { return picker()->view(); }
    // Waits for a scan that lists every pid (without selecting anything).
    bool listed(std::initializer_list<qint64> pids) {
        QSignalSpy scans(picker(), &ProcessPicker::scanFinished);
        picker()->refreshNow();
        if (!scans.wait(20000)) return false;
        for (qint64 pid : pids)
            if (rowOf(pid) < 0) return false;
        return true;
    }
    void rescan() {
        QSignalSpy scans(picker(), &ProcessPicker::scanFinished);
        picker()->refreshNow();
        QVERIFY(scans.wait(20000));
    }
    int rowOf(qint64 pid) {
        for (int r = 0; r < view()->model()->rowCount(); ++r)
            if (view()->model()->index(r, 0).data(gilscope::ui::ProcessTableModel::PidRole) ==
                int(pid))
                return r;
        return -1;
    }
    QPoint centreOfRow(int row) {
        return view()
            ->visualRect(view()->model()->index(row, gilscope::ui::ProcessTableModel::User))
            .center();
    }
    int pidAt(QPoint pos) {
        return view()->indexAt(pos).data(gilscope::ui::ProcessTableModel::PidRole).toInt();
    }
};

} // namespace

class TestProcessPicking : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    // One click on a row (no arrow keys, no double-click) enables Record everywhere,
    // and Ctrl+R records exactly that pid, not a neighbour.
    void singleClickThenCtrlRRecordsTheClickedPid() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess a(all.first(), QStringLiteral("three_deep.py"));
        TargetProcess b(all.last(), QStringLiteral("three_deep.py"));
        QVERIFY2(a.start(), qPrintable(a.error()));
        QVERIFY2(b.start(), qPrintable(b.error()));
        Harness h;
        if (QTest::currentTestFailed()) return;
        QTRY_VERIFY_WITH_TIMEOUT(h.listed({a.pid(), b.pid()}), 60000);
        QVERIFY(!h.window.recordAction()->isEnabled());

        h.picker()->setAutoRefresh(false);
        const QPoint at = h.centreOfRow(h.rowOf(b.pid()));
        QTest::mouseClick(h.view()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(h.picker()->selectedPid(), int(b.pid()));
        QVERIFY(h.window.recordAction()->isEnabled());

        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        QTest::keyClick(&h.window, Qt::Key_R, Qt::ControlModifier);
        QVERIFY2(h.window.attaching() || h.window.recording(), qPrintable(h.window.statusText()));
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        QVERIFY2(h.window.statusText().contains(QStringLiteral("Recording pid %1").arg(b.pid())),
                 qPrintable(h.window.statusText()));
        h.window.stop();

        // Space on the clicked row records it too.
        QTest::mouseClick(h.view()->viewport(), Qt::LeftButton, {},
                          h.centreOfRow(h.rowOf(a.pid())));
        QCOMPARE(h.picker()->selectedPid(), int(a.pid()));
        QTest::keyClick(h.view(), Qt::Key_Space);
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 2, 60000);
        QVERIFY2(h.window.statusText().contains(QStringLiteral("Recording pid %1").arg(a.pid())),
                 qPrintable(h.window.statusText()));
        h.window.stop();
        QVERIFY(h.errors.isEmpty());
    }

    // Newest first, so a new process would land above the picked one: while the pointer
    // rests on the table, a rescan moves nothing; the new process shows below the rows at
    // once, and is sorted in once the pointer leaves.
    void refreshWithNewProcessKeepsSelectionAndRowUnderPointer() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess a(all.first(), QStringLiteral("three_deep.py"));
        QVERIFY2(a.start(), qPrintable(a.error()));
        Harness h;
        if (QTest::currentTestFailed()) return;
        h.picker()->setAutoRefresh(false);
        h.view()->sortByColumn(gilscope::ui::ProcessTableModel::Pid, Qt::DescendingOrder);
        QTRY_VERIFY_WITH_TIMEOUT(h.listed({a.pid()}), 60000);

        const QPoint at = h.centreOfRow(h.rowOf(a.pid()));
        QTest::mouseMove(h.view()->viewport(), at);
        QTest::mouseClick(h.view()->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(h.picker()->selectedPid(), int(a.pid()));
        QCOMPARE(h.pidAt(at), int(a.pid()));
        QVERIFY(h.picker()->rowsHeld());

        TargetProcess b(all.last(), QStringLiteral("three_deep.py")); // a higher pid
        QVERIFY2(b.start(), qPrintable(b.error()));
        QVERIFY(b.pid() > a.pid());
        h.rescan();
        if (QTest::currentTestFailed()) return;
        QCOMPARE(h.pidAt(at), int(a.pid()));
        QCOMPARE(h.picker()->selectedPid(), int(a.pid()));
        QCOMPARE(h.picker()->currentProcess()->pid, int(a.pid()));
        QVERIFY2(h.rowOf(b.pid()) > h.rowOf(a.pid()), // listed, below: nothing moved
                 qPrintable(QStringLiteral("%1 %2").arg(h.rowOf(b.pid())).arg(h.rowOf(a.pid()))));

        // The pointer leaves the table: the new process appears, the selection stays.
        auto* filter = h.window.findChild<QLineEdit*>(QStringLiteral("processFilter"));
        QTest::mouseMove(filter);
        QTRY_VERIFY_WITH_TIMEOUT(!h.picker()->rowsHeld(), 60000);
        QVERIFY(h.rowOf(b.pid()) >= 0);
        QVERIFY(h.rowOf(b.pid()) < h.rowOf(a.pid()));
        QCOMPARE(h.picker()->selectedPid(), int(a.pid()));
        const QModelIndexList selected = h.view()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().row(), h.rowOf(a.pid()));
    }

    // The window opens under the pointer, which rests on the table (issue 38): the scans
    // must still list the processes. Holding new rows back showed none for as long as the
    // pointer stayed, and a pid typed into the filter matched nothing.
    void pointerRestingOnTheTableStillListsProcesses() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        Harness h;
        if (QTest::currentTestFailed()) return;
        h.picker()->setAutoRefresh(false);
        QTest::mouseMove(h.view()->viewport(), QPoint(20, 20));
        QEnterEvent enter(QPointF(20, 20), QPointF(20, 20),
                          h.view()->viewport()->mapToGlobal(QPointF(20, 20)));
        QApplication::sendEvent(h.view()->viewport(), &enter);
        QVERIFY(h.picker()->rowsHeld());
        // Started while the pointer rests there: the next scan lists it all the same.
        TargetProcess a(all.first(), QStringLiteral("three_deep.py"));
        QVERIFY2(a.start(), qPrintable(a.error()));
        QVERIFY2(h.listed({a.pid()}), "the process is not listed while the pointer rests");
        QVERIFY(h.picker()->rowsHeld());
        auto* filter = h.window.findChild<QLineEdit*>(QStringLiteral("processFilter"));
        filter->setText(QString::number(a.pid()));
        QTRY_VERIFY_WITH_TIMEOUT(h.rowOf(a.pid()) >= 0, 10000);
        // The pointer leaves, so the next test's window does not open under it.
        QTest::mouseMove(filter);
        QTRY_VERIFY_WITH_TIMEOUT(!h.picker()->rowsHeld(), 30000);
    }

    // A Leave that never comes (a popup or dialog took the pointer) must not hold the
    // rows forever: the picker re-checks where the cursor is.
    void missedLeaveDoesNotHoldRowsForever() {
        Harness h;
        if (QTest::currentTestFailed()) return;
        h.picker()->setAutoRefresh(false);
        auto* filter = h.window.findChild<QLineEdit*>(QStringLiteral("processFilter"));
        QTest::mouseMove(filter); // the cursor is outside the rows
        QVERIFY(!h.picker()->rowsHeld());
        QEnterEvent enter(QPointF(5, 5), QPointF(5, 5),
                          h.view()->viewport()->mapToGlobal(QPointF(5, 5)));
        QApplication::sendEvent(h.view()->viewport(), &enter); // an Enter, then no Leave
        QVERIFY(h.picker()->rowsHeld());
        QTRY_VERIFY_WITH_TIMEOUT(!h.picker()->rowsHeld(), 30000);
    }

    // Issue 48: while the pointer rests on the table, an exited process is struck out for
    // a moment, then folds away if that moves nothing under the pointer: a row below it
    // folds, the row under it and those above wait until the pointer moves on.
    void exitedRowsFoldAwayUnderARestingPointer() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess a(all.first(), QStringLiteral("three_deep.py"));
        TargetProcess b(all.last(), QStringLiteral("three_deep.py"));
        TargetProcess c(all.first(), QStringLiteral("three_deep.py"));
        QVERIFY2(a.start() && b.start() && c.start(), "targets did not start");
        Harness h;
        if (QTest::currentTestFailed()) return;
        h.picker()->setAutoRefresh(false);
        QTRY_VERIFY_WITH_TIMEOUT(h.listed({a.pid(), b.pid(), c.pid()}), 60000);
        // The pointer rests on the middle one of the three rows, whichever order they are in.
        std::vector<TargetProcess*> byRow{&a, &b, &c};
        std::sort(byRow.begin(), byRow.end(), [&](TargetProcess* x, TargetProcess* y) {
            return h.rowOf(x->pid()) < h.rowOf(y->pid());
        });
        TargetProcess& above = *byRow[0];
        TargetProcess& under = *byRow[1];
        TargetProcess& below = *byRow[2];
        const QPoint at = h.centreOfRow(h.rowOf(under.pid()));
        QTest::mouseMove(h.view()->viewport(), at);
        QVERIFY(h.picker()->rowsHeld());
        QCOMPARE(h.pidAt(at), int(under.pid()));
        for (TargetProcess* t : byRow)
            t->terminate();
        h.rescan();
        if (QTest::currentTestFailed()) return;
        // The next scan strikes all three out and moves nothing.
        QVERIFY(h.picker()->rowsHeld());
        QVERIFY(h.rowOf(above.pid()) >= 0 && h.rowOf(below.pid()) >= 0);
        QCOMPARE(h.pidAt(at), int(under.pid()));
        // A moment later the row below folds away; the one under the pointer and the one
        // above it (whose going would move it) stay until the pointer moves on.
        QTRY_VERIFY_WITH_TIMEOUT((h.rescan(), h.rowOf(below.pid()) < 0), 30000);
        QVERIFY(h.picker()->rowsHeld());
        QVERIFY(h.rowOf(above.pid()) >= 0);
        QCOMPARE(h.pidAt(at), int(under.pid()));
        auto* filter = h.window.findChild<QLineEdit*>(QStringLiteral("processFilter"));
        QTest::mouseMove(filter);
        QTRY_VERIFY_WITH_TIMEOUT(h.rowOf(under.pid()) < 0 && h.rowOf(above.pid()) < 0, 30000);
    }

    // The selected process exits: nothing is selected (no neighbour inherits the
    // selection), Record is disabled, and the window says which process went.
    void selectedProcessExitingClearsTheSelection() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess a(all.first(), QStringLiteral("three_deep.py"));
        TargetProcess b(all.last(), QStringLiteral("three_deep.py"));
        TargetProcess c(all.first(), QStringLiteral("three_deep.py"));
        QVERIFY2(a.start() && b.start() && c.start(), "targets did not start");
        Harness h;
        if (QTest::currentTestFailed()) return;
        h.picker()->setAutoRefresh(false);
        QTRY_VERIFY_WITH_TIMEOUT(h.listed({a.pid(), b.pid(), c.pid()}), 60000);
        QVERIFY(h.picker()->selectPid(int(b.pid())));
        QVERIFY(h.window.recordAction()->isEnabled());

        QSignalSpy lost(h.picker(), &ProcessPicker::selectionLost);
        b.terminate();
        QTRY_VERIFY_WITH_TIMEOUT((h.rescan(), h.rowOf(b.pid()) < 0), 60000);
        QCOMPARE(lost.count(), 1);
        QCOMPARE(lost.at(0).at(0).toInt(), int(b.pid()));
        QVERIFY(!h.picker()->currentProcess());
        QCOMPARE(h.picker()->selectedPid(), 0);
        QVERIFY(h.view()->selectionModel()->selectedRows().isEmpty());
        QVERIFY(!h.window.recordAction()->isEnabled());
        const QString said = QStringLiteral("Process %1").arg(b.pid());
        QVERIFY2(h.window.statusText().contains(said), qPrintable(h.window.statusText()));
        auto* details = h.window.findChild<QLabel*>(QStringLiteral("processDetails"));
        QVERIFY(details && details->text().contains(said));
        QVERIFY(details->text().contains(QStringLiteral("exited")));
        QTest::keyClick(&h.window, Qt::Key_R, Qt::ControlModifier);
        QVERIFY(!h.window.attaching());
    }
};

QTEST_MAIN(TestProcessPicking)
#include "test_process_picking.moc"
