// Not a test: records PID in the real window for SECONDS, then saves screenshots of the
// analysis views while it still records: OUTDIR/analysis-top.png (top functions),
// analysis-flame.png (flame graph), analysis-contention.png (GIL contention, top
// functions), analysis-range.png (a range dragged on the timeline, call tree) and
// analysis-stack-chart.png (the stack chart of that range).
//   xvfb-run -s "-screen 0 1600x1000x24" analysis_screenshot_driver PID SECONDS OUTDIR
// With GILSCOPE_C_STACKS=1 it records C stacks too (the window's "C stacks" option).
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/stack_chart_view.h"
#include "ui/main_window.h"
#include "ui/record_options_bar.h"

#include "ui/process_picker.h"
#include "ui/timeline_widget.h"
#include <QCheckBox>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QScreen>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <cstdio>

using namespace gilscope;
using namespace gilscope::ui;

namespace {

bool shoot(MainWindow& window, const QString& path) {
    QSignalSpy spy(window.analysis(), &AnalysisPanel::resultShown);
    spy.wait(3000);
    QTest::qWait(300);
    const bool ok = window.grab().save(path);
    std::printf("%s %s\n", ok ? "saved" : "could not save", qPrintable(path));
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s PID SECONDS OUTDIR\n", argv[0]);
        return 2;
    }
    const int pid = QString::fromLocal8Bit(argv[1]).toInt();
    const int seconds = QString::fromLocal8Bit(argv[2]).toInt();
    const QString out = QString::fromLocal8Bit(argv[3]);
    MainWindow window;
    window.setGeometry(QApplication::primaryScreen()->availableGeometry());
    window.show();
    for (int i = 0; i < 100 && !window.picker()->selectPid(pid); ++i) {
        window.picker()->refreshNow();
        QTest::qWait(200);
    }
    // GILSCOPE_C_STACKS=1: record with C stacks (--native-stacks), as the option's box does.
    if (qEnvironmentVariableIntValue("GILSCOPE_C_STACKS"))
        window.recordOptions()->nativeStacksBox()->setChecked(true);
    window.recordAction()->trigger();
    if (!QTest::qWaitFor([&] { return !window.attaching(); }, 20000) || !window.recording()) {
        std::fprintf(stderr, "could not start recording pid %d: %s\n", pid,
                     qPrintable(window.statusText()));
        return 1;
    }
    QTest::qWait(seconds * 1000);
    AnalysisPanel* panel = window.analysis();
    // Select the hottest function, so the source view shows its heat.
    panel->topView()->setCurrentIndex(panel->topView()->model()->index(0, 0));
    bool ok = shoot(window, out + QStringLiteral("/analysis-top.png"));
    panel->tabs()->setCurrentIndex(1);
    ok = shoot(window, out + QStringLiteral("/analysis-flame.png")) && ok;
    panel->tabs()->setCurrentIndex(0);
    panel->stateBox()->setCurrentIndex(
        panel->stateBox()->findData(int(StateFilter::GilContention)));
    ok = shoot(window, out + QStringLiteral("/analysis-contention.png")) && ok;
    panel->stateBox()->setCurrentIndex(panel->stateBox()->findData(int(StateFilter::All)));
    TimelineWidget* timeline = window.timeline();
    const auto snap = timeline->snapshot();
    const int x0 = timeline->xAt(snap.originUs + snap.spanUs / 3);
    const int x1 = timeline->xAt(snap.originUs + snap.spanUs * 2 / 3);
    const int y = 60;
    QTest::mousePress(timeline, Qt::LeftButton, {}, QPoint(x0, y));
    QTest::mouseMove(timeline, QPoint(x1, y));
    QTest::mouseRelease(timeline, Qt::LeftButton, {}, QPoint(x1, y));
    panel->tabs()->setCurrentIndex(2);
    ok = shoot(window, out + QStringLiteral("/analysis-range.png")) && ok;
    QSignalSpy chartShown(panel->stackChart(), &StackChartView::chartShown);
    panel->tabs()->setCurrentWidget(panel->stackChart());
    chartShown.wait(10000);
    ok = shoot(window, out + QStringLiteral("/analysis-stack-chart.png")) && ok;
    window.stop();
    return ok ? 0 : 1;
}
