// Not a test: docs/window.md's screenshots of a big opened recording. Opens FILE.bin in
// the window at the screen's size, selects one thread (a click on its name) and a range
// (a drag on its track) as a user does, selects the hottest function, waits until every
// view has answered, and saves the window.
//   xvfb-run -s "-screen 0 1366x768x24" file_screenshot_driver FILE.bin OUT.png
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/busy_overlay.h"
#include "ui/main_window.h"
#include "ui/timeline_widget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QScreen>
#include <QTableView>
#include <QTest>

#include <cstdio>

using namespace gilscope::ui;

namespace {

bool settled(AnalysisPanel* panel) {
    const auto r = panel->controller()->latest();
    return r && r->snapshot && r->snapshot->finished && !panel->controller()->busy() &&
           !panel->busyOverlay()->isVisible();
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: file_screenshot_driver FILE.bin OUT.png\n");
        return 2;
    }
    MainWindow window;
    window.setGeometry(QApplication::primaryScreen()->availableGeometry());
    window.show();
    bool loaded = false;
    QObject::connect(&window, &MainWindow::recordingLoaded, [&](bool ok) { loaded = ok; });
    QElapsedTimer clock;
    clock.start();
    window.openRecordingFile(QString::fromLocal8Bit(argv[1]));
    AnalysisPanel* panel = window.analysis();
    if (!QTest::qWaitFor([&] { return loaded && settled(panel); }, 600000)) {
        std::fprintf(stderr, "the file did not open\n");
        return 1;
    }
    std::printf("opened, every view filled: %.2f s\n", clock.elapsed() / 1000.0);
    int shown = 0; // results shown since an action
    QObject::connect(panel, &AnalysisPanel::resultShown, [&] { ++shown; });
    const auto answered = [&] {
        const bool ok = QTest::qWaitFor([&] { return shown > 0 && settled(panel); }, 120000);
        shown = 0;
        return ok;
    };
    TimelineWidget* timeline = window.timeline();
    const auto& threads = timeline->snapshot().threads;
    const uint64_t thread = threads.at(threads.size() > 1 ? 1 : 0).threadId;
    shown = 0;
    QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->nameRect(thread).center());
    if (!answered()) std::fprintf(stderr, "the thread's selection was not answered\n");
    // A range of about a quarter of the recording, dragged on the selected track.
    const uint64_t start = timeline->viewStartUs(), end = timeline->viewEndUs();
    const int y = timeline->trackRect(thread).center().y();
    const int x0 = timeline->xAt(start + (end - start) * 35 / 100);
    const int x1 = timeline->xAt(start + (end - start) * 60 / 100);
    clock.restart();
    shown = 0;
    QTest::mousePress(timeline, Qt::LeftButton, {}, {x0, y});
    for (int x = x0; x <= x1; x += 20)
        QTest::mouseMove(timeline, {x, y});
    QTest::mouseRelease(timeline, Qt::LeftButton, {}, {x1, y});
    if (!answered()) std::fprintf(stderr, "the range was not answered\n");
    std::printf("thread and range answered: %.2f s\n", clock.elapsed() / 1000.0);
    QTableView* top = panel->topView();
    if (top->model()->rowCount() > 0) top->setCurrentIndex(top->model()->index(0, 0));
    QTest::qWait(500); // the source pane reads its file
    const bool ok = window.grab().save(QString::fromLocal8Bit(argv[2]));
    std::printf("%s %s (%dx%d)\n", ok ? "saved" : "could not save", argv[2], window.width(),
                window.height());
    return ok ? 0 : 1;
}
