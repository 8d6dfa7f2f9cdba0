// The window's Snapshot (issue 39) on real processes: File › Dump all threads… on the
// selected process, without recording, shows every thread with its frames, source lines
// and variables; Copy gives `gilscope dump -a --locals`'s text; while recording it reads
// the recorded process.
#include "tests/gui/gui_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/snapshot/snapshot_dialog.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using gilscope::test::Interpreter;
using gilscope::test::TargetProcess;
using gilscope::ui::MainWindow;
using gilscope::ui::SnapshotDialog;

namespace {

QTreeWidgetItem* childStartingWith(QTreeWidgetItem* parent, const QString& text) {
    for (int i = 0; i < parent->childCount(); ++i)
        if (parent->child(i)->text(0).startsWith(text)) return parent->child(i);
    return nullptr;
}

QTreeWidgetItem* threadNamed(QTreeWidget* tree, const QString& name) {
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(0).contains("\"" + name + "\""))
            return tree->topLevelItem(i);
    return nullptr;
}

SnapshotDialog* openedSnapshot(MainWindow& window) {
    const auto dialogs = window.findChildren<SnapshotDialog*>();
    return dialogs.isEmpty() ? nullptr : dialogs.last();
}

} // namespace

class TestSnapshot : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    // From the start page: the deadlock's two threads, each at the line it waits on, with
    // its variable folded under the frame.
    void dumpsTheSelectedProcess_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters());
    }
    void dumpsTheSelectedProcess() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "deadlock.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject lines = target.readyInfo();
        QTemporaryDir dir;
        QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
        MainWindow window(&settings);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(
            (window.picker()->refreshNow(), window.picker()->selectPid(int(target.pid()))), 60000);
        QTRY_VERIFY(window.snapshotAction()->isEnabled());
        QVERIFY(gilscope::test::clickAction(&window, window.snapshotAction()));
        SnapshotDialog* dialog = openedSnapshot(window);
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->snapshot().has_value(), 30000);
        QTreeWidget* tree = dialog->tree();
        for (const auto& [name, variable, source, line] :
             {std::tuple{QString("first"), QString("order"), QString("with lock_b:"),
                         lines["a_line"].toInt()},
              std::tuple{QString("second"), QString("customer"), QString("with lock_a:"),
                         lines["b_line"].toInt()}}) {
            QTreeWidgetItem* thread = threadNamed(tree, name);
            QVERIFY2(thread, qPrintable(interpreter.label + ": no thread " + name));
            QCOMPARE(thread->text(1), QStringLiteral("waiting: lock wait"));
            QVERIFY(thread->isExpanded());
            QTreeWidgetItem* frame = thread->child(0);
            QVERIFY(frame->text(0).startsWith(name + " ("));
            QVERIFY2(frame->text(0).endsWith(":" + QString::number(line) + ")"),
                     qPrintable(frame->text(0)));
            QCOMPARE(frame->text(1), source);
            QVERIFY(!frame->isExpanded()); // variables start folded
            QTreeWidgetItem* var = childStartingWith(frame, variable);
            QVERIFY2(var, qPrintable(interpreter.label + ": no variable " + variable));
            QCOMPARE(var->text(1),
                     name == "first" ? QStringLiteral("17") : QStringLiteral("'ada'"));
        }
        // Copy gives the dump's text.
        dialog->findChild<QPushButton*>("snapshotCopy")->click();
        const QString text = QGuiApplication::clipboard()->text();
        QVERIFY2(text.contains("            order: 17\n"), qPrintable(text));
        QVERIFY(text.contains("        with lock_b:\n"));
        // Refresh takes another.
        QSignalSpy done(dialog, &SnapshotDialog::finished);
        dialog->findChild<QPushButton*>("snapshotRefresh")->click();
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(0).toBool(), true);
        dialog->close();
    }

    // A process that has gone: the dialog says so instead of a tree.
    void saysWhenTheProcessIsGone() {
        const QList<Interpreter> found = gilscope::test::findInterpreters();
        TargetProcess target(found.first(), "deadlock.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const int pid = int(target.pid());
        SnapshotDialog dialog(pid, "deadlock.py");
        QTRY_VERIFY_WITH_TIMEOUT(dialog.snapshot().has_value(), 30000);
        target.terminate();
        QSignalSpy done(&dialog, &SnapshotDialog::finished);
        dialog.refresh();
        QVERIFY(done.wait(30000));
        QCOMPARE(done.at(0).at(0).toBool(), false);
        const QString status = dialog.findChild<QLabel*>("snapshotStatus")->text();
        QVERIFY2(status.startsWith("No snapshot: "), qPrintable(status));
        QVERIFY2(status.contains(QString::number(pid)), qPrintable(status));
        // The last snapshot stays, and can still be copied.
        QVERIFY(dialog.findChild<QPushButton*>("snapshotCopy")->isEnabled());
    }
};

QTEST_MAIN(TestSnapshot)
#include "test_snapshot.moc"
