// Not a test: the window's Snapshot as a user sees it (issue 39, README.md). Starts
// TARGET.py with python3, selects it on the start page, presses Snapshot, unfolds the
// frames named on the command line (their variables) and grabs the Snapshot window.
//   XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1600x1000x24"
//       snapshot_screenshot_driver OUT.png tests/targets/order_service.py post_entry audit_entry
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/snapshot/snapshot_dialog.h"

#include <QApplication>
#include <QProcess>
#include <QScreen>
#include <QSettings>
#include <QTest>
#include <QTreeWidget>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gilscope"));
    QApplication::setOrganizationName(QStringLiteral("gilscope"));
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUT.png TARGET.py [FUNCTION...]\n", argv[0]);
        return 2;
    }
    QProcess target;
    target.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    target.start(QStringLiteral("python3"), {QString::fromLocal8Bit(argv[2])});
    if (!target.waitForReadyRead(20000)) return 1; // its READY line
    const int pid = int(target.processId());
    QSettings settings;
    gilscope::ui::MainWindow window(&settings);
    window.show();
    if (!QTest::qWaitFor(
            [&] { return window.picker()->refreshNow(), window.picker()->selectPid(pid); }, 20000))
        return 1;
    window.snapshotAction()->trigger();
    auto* dialog = window.findChild<gilscope::ui::SnapshotDialog*>();
    if (!dialog || !QTest::qWaitFor([&] { return dialog->snapshot().has_value(); }, 20000))
        return 1;
    QTreeWidget* tree = dialog->tree();
    QStringList unfold;
    for (int i = 3; i < argc; ++i)
        unfold << QString::fromLocal8Bit(argv[i]) + " (";
    QTreeWidgetItem* first = nullptr; // the topmost thread with a frame unfolded
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* thread = tree->topLevelItem(i);
        for (int k = 0; k < thread->childCount(); ++k)
            for (const QString& f : unfold)
                if (thread->child(k)->text(0).startsWith(f)) {
                    thread->child(k)->setExpanded(true);
                    if (!first) first = thread;
                }
    }
    if (first) tree->scrollToItem(first, QAbstractItemView::PositionAtTop);
    dialog->activateWindow();
    QTest::qWait(800);
    const QRect r = dialog->frameGeometry();
    const bool ok = QGuiApplication::primaryScreen()
                        ->grabWindow(0, r.x(), r.y(), r.width(), r.height())
                        .save(QString::fromLocal8Bit(argv[1]));
    std::printf("%s %s\n", ok ? "saved" : "could not save", argv[1]);
    target.kill();
    target.waitForFinished();
    return ok ? 0 : 1;
}
