// Not a test: the window as a new user sees it (issue 17), at whatever screen size it runs
// under, with the settings a first start has (point XDG_CONFIG_HOME at an empty dir).
// Starts TARGET.py with python3, grabs the window from the screen on the start page (start.png),
// records the target picked by keyboard (its pid in the filter, Tab, Return) for a few
// seconds, marked after two (recording.png), then with one track selected and expanded
// (selected.png). With a third argument, "transforms", the flame graph after collapsing
// recursion and merging `wrapper` (transforms.png), as a user does from a right-click on
// tests/targets/ast_visitor.py.
//   XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -s "-screen 0 1366x768x24"
//       layout_screenshot_driver OUTDIR tests/targets/eight_threads.py   (one line)
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/process_table_model.h"
#include "ui/timeline_widget.h"

#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QProcess>
#include <QScreen>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <cstdio>

namespace {

// What the screen shows where the window is (as a screenshot tool takes it).
bool grabScreen(const QWidget& window, const QString& path) {
    const QRect r = window.frameGeometry();
    const bool ok = QGuiApplication::primaryScreen()
                        ->grabWindow(0, r.x(), r.y(), r.width(), r.height())
                        .save(path);
    std::printf("%s %s (%dx%d)\n", ok ? "saved" : "could not save", qPrintable(path), r.width(),
                r.height());
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gilscope"));
    QApplication::setOrganizationName(QStringLiteral("gilscope"));
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s OUTDIR TARGET.py\n", argv[0]);
        return 2;
    }
    const QDir out(QString::fromLocal8Bit(argv[1]));
    QProcess target;
    target.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    target.start(QStringLiteral("python3"), {QString::fromLocal8Bit(argv[2])});
    if (!target.waitForReadyRead(20000)) return 1; // its READY line
    const int pid = int(target.processId());

    QSettings settings; // as the application: $XDG_CONFIG_HOME/gilscope/gilscope.conf
    gilscope::ui::MainWindow window(&settings);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) return 1;
    window.activateWindow();
    (void)QTest::qWaitFor(
        [&] {
            window.picker()->refreshNow();
            return window.picker()->model()->rowOfPid(pid) >= 0;
        },
        20000);
    QTest::qWait(500);
    grabScreen(window, out.filePath(QStringLiteral("start.png")));

    QLineEdit* filter = window.picker()->filter();
    filter->setFocus();
    QTest::keyClicks(filter, QString::number(pid));
    QTest::keyClick(filter, Qt::Key_Tab);
    QTest::keyClick(window.picker()->view(), Qt::Key_Return);
    if (!QTest::qWaitFor([&] { return window.recording(); }, 20000)) {
        std::fprintf(stderr, "did not start recording: %s\n", qPrintable(window.statusText()));
        return 1;
    }
    // Two seconds in, a marker (Recording › Add marker…), as a user marks a moment.
    window.prompts().askMarkText = [] { return QStringLiteral("checkout starts"); };
    QTest::qWait(2000);
    window.markAction()->trigger();
    QTest::qWait(3000);
    grabScreen(window, out.filePath(QStringLiteral("recording.png")));

    gilscope::ui::TimelineWidget* timeline = window.timeline();
    const auto shown = timeline->shownThreads();
    if (!shown.empty()) {
        QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->nameRect(shown[0]).center());
        QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->twistyRect(shown[0]).center());
    }
    QTest::qWait(1500);
    grabScreen(window, out.filePath(QStringLiteral("selected.png")));
    if (argc > 3 && QByteArray(argv[3]) == "transforms") {
        using namespace gilscope;
        QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->nameRect(shown[0]).center());
        ui::AnalysisPanel* panel = window.analysis();
        panel->tabs()->setCurrentIndex(1); // the flame graph
        panel->controller()->addTransform({TransformKind::CollapseRecursion, {}, {}, {}});
        panel->controller()->addTransform({TransformKind::MergeFunction, {"wrapper", ""}, {}, {}});
        QTest::qWait(2500);
        grabScreen(window, out.filePath(QStringLiteral("transforms.png")));
    }
    window.stop();
    target.kill();
    target.waitForFinished();
    return 0;
}
