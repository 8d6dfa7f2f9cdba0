// Not a test: records four_threads.py (under the newest interpreter present, 3.14+ names
// its threads) in the real window, then saves screenshots of the timeline:
// OUTDIR/timeline-names.png (all threads, busiest first, with names),
// timeline-exception.png (the Exception state: one thread drawn, the rest folded),
// timeline-zoom.png (zoomed with Ctrl+wheel, hovering: the tooltip, a screen grab).
//   xvfb-run -s "-screen 0 1600x1000x24" timeline_screenshot_driver OUTDIR
#include "tests/support/python_interpreters.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QHelpEvent>
#include <QPainter>
#include <QTest>
#include <QWheelEvent>

#include <cstdio>

using namespace gilscope;
using namespace gilscope::ui;

namespace {

bool save(const QPixmap& pixmap, const QString& path) {
    const bool ok = pixmap.save(path);
    std::printf("%s %s\n", ok ? "saved" : "could not save", qPrintable(path));
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    const auto interpreters = test::findInterpreters();
    if (interpreters.isEmpty()) return 1;
    test::TargetProcess target(interpreters.last(), QStringLiteral("four_threads.py"));
    if (!target.start()) {
        std::fprintf(stderr, "%s\n", qPrintable(target.error()));
        return 1;
    }
    std::printf("target: %s\n", qPrintable(interpreters.last().label));
    MainWindow window;
    window.resize(1400, 950);
    window.show();
    for (int i = 0; i < 100 && !window.picker()->selectPid(int(target.pid())); ++i) {
        window.picker()->refreshNow();
        QTest::qWait(200);
    }
    window.recordAction()->trigger();
    if (!QTest::qWaitFor([&] { return !window.attaching(); }, 20000) || !window.recording())
        return 1;
    QTest::qWait(3000);
    window.stop();
    QTest::qWait(500);
    TimelineWidget* timeline = window.timeline();
    timeline->setAllExpanded(true); // every thread's lanes
    QTest::qWait(300);
    bool ok = save(window.grab(), out + QStringLiteral("/timeline-window.png"));
    ok = save(timeline->grab(), out + QStringLiteral("/timeline-names.png")) && ok;
    QComboBox* state = window.analysis()->stateBox();
    state->setCurrentIndex(state->findData(int(StateFilter::Exception)));
    QTest::qWait(500);
    ok = save(timeline->grab(), out + QStringLiteral("/timeline-exception.png")) && ok;
    state->setCurrentIndex(state->findData(int(StateFilter::All)));
    QTest::qWait(500);
    const QRect lane = timeline->laneRect(timeline->shownThreads().front(), 0);
    const QPoint at(lane.left() + lane.width() / 2, lane.center().y());
    for (int i = 0; i < 8; ++i) {
        QWheelEvent e(QPointF(at), QPointF(timeline->mapToGlobal(at)), QPoint(), QPoint(0, 120),
                      Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(timeline, &e);
    }
    QHelpEvent help(QEvent::ToolTip, at, timeline->mapToGlobal(at));
    QApplication::sendEvent(timeline, &help);
    QTest::qWait(700);
    // The zoomed timeline with the hover tooltip drawn where it appeared.
    QPixmap zoomed = timeline->grab();
    for (QWidget* w : QApplication::topLevelWidgets())
        if (w->objectName() == QLatin1String("qtooltip_label") && w->isVisible()) {
            QPainter p(&zoomed);
            p.drawPixmap(timeline->mapFromGlobal(w->pos()), w->grab());
        }
    ok = save(zoomed, out + QStringLiteral("/timeline-zoom.png")) && ok;
    return ok ? 0 : 1;
}
