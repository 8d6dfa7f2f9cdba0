// The timeline driven like a user does: Ctrl+wheel zooms around the pointer,
// the wheel, middle-drag and Shift+drag pan, a left drag still selects a range,
// hovering tells the time and states; short recordings fill the width. Against
// real processes (every interpreter present): the exception lane, thread names
// from /proc, busiest-first order and folding by the state filter. And the
// state filter applied to the Firefox Profiler export, for a live recording and
// an opened file, checked by check-gecko.
#include "core/analysis/profile_model.h"
#include "core/sample/tee_sink.h"
#include "core/sample/track_state.h"
#include "core/session/live_timeline.h"
#include "core/session/recording_session.h"
#include "tests/gui/gui_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/shared_dir.h"
#include "tests/support/synthetic_feed.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/timeline_range_selector.h"
#include "ui/live_figures.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/timeline_detail.h"
#include "ui/timeline_layout.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

using namespace gilscope;
using namespace gilscope::ui;
using gilscope::test::Interpreter;
using gilscope::test::SyntheticFeed;
using gilscope::test::TargetProcess;
namespace TS = gilscope::ThreadStatus;

namespace {

// The kernel's name of a thread (its comm), as the OS shows it.
QString threadComm(int pid, uint64_t tid) {
    QFile file(QStringLiteral("/proc/%1/task/%2/comm").arg(pid).arg(tid));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

constexpr uint64_t kT0 = 10'000'000; // first sample's time, µs
constexpr int kExceptionLane = 3;    // index in TimelineWidget::laneNames()

// `ms` milliseconds at 1 kHz on two threads: thread 1 on CPU holding the GIL,
// thread 2 asleep; thread 3 (when withWaiter) waits for the GIL in the second
// half only.
TimelineSnapshot syntheticTimeline(uint64_t ms, bool withWaiter = false) {
    LiveTimeline timeline;
    SyntheticFeed feed(timeline);
    const FrameId work = feed.frame("app.py", 1, "work"), idle = feed.frame("app.py", 2, "idle");
    for (uint64_t i = 0; i < ms; ++i) {
        const uint64_t t = kT0 + i * 1000;
        feed.add(1, TS::HasGil | TS::OnCpu | TS::MainThread, {work}, {t});
        feed.add(2, 0, {idle}, {t});
        if (withWaiter && i >= ms / 2) feed.add(3, TS::GilRequested, {work}, {t});
    }
    timeline.finish({});
    return timeline.snapshot();
}

void wheel(QWidget* w, QPoint pos, int delta, Qt::KeyboardModifiers modifiers) {
    QWheelEvent e(QPointF(pos), QPointF(w->mapToGlobal(pos)), QPoint(), QPoint(0, delta),
                  Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

double spanUs(const TimelineWidget& w) {
    return double(w.viewEndUs() - w.viewStartUs());
}

const ThreadTimeline* threadOf(const TimelineSnapshot& s, uint64_t tid) {
    for (const ThreadTimeline& t : s.threads)
        if (t.threadId == tid) return &t;
    return nullptr;
}

uint64_t exceptionSamples(const TimelineSnapshot& s, uint64_t tid) {
    const ThreadTimeline* t = threadOf(s, tid);
    uint64_t n = 0;
    if (t)
        for (const TimelineBucket& b : t->buckets)
            n += b.exception;
    return n;
}

// A window whose dialogs are answered by the test.
struct Harness {
    MainWindow window;
    QString savePath, openPath, suggestedPath, saveTitle;
    QStringList errors;
    Harness() {
        window.prompts().showMessage = [this](MainWindow::MessageKind k, const QString&,
                                              const QString& m) {
            if (k == MainWindow::MessageKind::Error) errors << m;
        };
        window.prompts().askSavePath = [this](const QString& title, const QString& suggested,
                                              const QString&) {
            saveTitle = title;
            suggestedPath = suggested;
            return savePath;
        };
        window.prompts().askOpenPath = [this] { return openPath; };
        window.prompts().askAfterExport = [](const QString&) {
            return MainWindow::ExportChoice::Close;
        };
        window.prompts().openUrl = [](const QUrl&) { return true; };
        window.show();
    }
};

// Per exported thread (by tid): its sample count.
std::map<qint64, qint64> samplesPerThread(const QJsonObject& profile) {
    std::map<qint64, qint64> counts;
    for (const auto& v : profile.value(QStringLiteral("threads")).toArray()) {
        const QJsonObject t = v.toObject();
        const QJsonValue tid = t.value(QStringLiteral("tid"));
        const qint64 id = tid.isString() ? tid.toString().toLongLong() : tid.toInteger();
        counts[id] += t.value(QStringLiteral("samples"))
                          .toObject()
                          .value(QStringLiteral("length"))
                          .toInteger();
    }
    return counts;
}

// Chooses a state in the toolbar and waits for the views' result under it.
AnalysisResultPtr chooseState(MainWindow& window, StateFilter state) {
    QComboBox* box = window.analysis()->stateBox();
    box->setCurrentIndex(box->findData(int(state)));
    AnalysisController* c = window.analysis()->controller();
    if (!QTest::qWaitFor(
            [&] {
                auto r = c->latest();
                return r && r->snapshot && r->snapshot->filter.state == state &&
                       r->snapshot->finished && !c->busy();
            },
            60000))
        return nullptr;
    return c->latest();
}

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT
private:
    // Exports through the Export button with the toolbar's state; checks the file
    // loads (check-gecko) and holds exactly the samples the views count in that
    // state.
    void exportFiltered(Harness& h, StateFilter state, const QString& path,
                        std::map<qint64, qint64>* perThread) {
        const AnalysisResultPtr result = chooseState(h.window, state);
        QVERIFY(result);
        const uint64_t matched = result->snapshot->matchedSamples;
        QVERIFY2(matched > 0, "the state has no samples to export");
        h.savePath = path;
        QSignalSpy done(&h.window, &MainWindow::exportFinished);
        QVERIFY(gilscope::test::clickAction(&h.window, h.window.exportAction()));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 120000);
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        // The dialog and the file name say which samples the export keeps.
        const QString name = QString::fromUtf8(stateFilterName(state).data());
        const QString label = QString::fromUtf8(stateFilterLabel(state).data());
        QVERIFY2(h.suggestedPath.endsWith(QLatin1Char('_') + name + QStringLiteral(".json")),
                 qPrintable(h.suggestedPath));
        QVERIFY2(h.saveTitle.contains(label), qPrintable(h.saveTitle));
        QJsonObject profile;
        qint64 samples = 0;
        QString error;
        QVERIFY2(gilscope::test::readGeckoProfile(path, &profile, &samples, &error),
                 qPrintable(error));
        QCOMPARE(uint64_t(samples), matched);
        if (gilscope::test::haveSharedDir()) {
            const QString problems = gilscope::test::checkGeckoProblems(path);
            QVERIFY2(problems.isEmpty(), qPrintable(problems));
        } else {
            qInfo("../shared is absent: check-gecko was not run on %s", qPrintable(path));
        }
        *perThread = samplesPerThread(profile);
    }

private slots:
    void zoomPanAndRangeSelection() {
        const TimelineSnapshot source = syntheticTimeline(2000);
        TimelineWidget w;
        w.resize(1000, 400);
        TimelineRangeSelector selector(&w);
        QSignalSpy ranges(&selector, &TimelineRangeSelector::rangeSelected);
        w.setSnapshot(source);
        w.setAllExpanded(true); // the sub-lanes
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.zoomed());
        const double full = spanUs(w);
        QVERIFY2(full >= 2.0e6 && full < 2.1e6, qPrintable(QString::number(full)));

        // Ctrl+wheel three notches in, at 0.5 s: the span shrinks, the time under
        // the pointer stays put.
        const int y = w.laneRect(1, 0).center().y();
        const int x = w.xAt(kT0 + 500'000);
        const uint64_t under = w.timeAt(x);
        wheel(&w, QPoint(x, y), 3 * 120, Qt::ControlModifier);
        QVERIFY(w.zoomed());
        const double zoomedSpan = spanUs(w);
        QVERIFY2(zoomedSpan > 0.4 * full && zoomedSpan < 0.6 * full,
                 qPrintable(QString::number(zoomedSpan)));
        QVERIFY(std::abs(double(w.timeAt(x)) - double(under)) < 0.01 * full);
        // The plain wheel does not zoom without Ctrl.
        const uint64_t before = w.viewStartUs();

        // Middle-drag leftwards by 200 px shows later times, by 200 px worth of
        // span.
        const int plotWidth = w.laneRect(1, 0).width();
        QTest::mousePress(&w, Qt::MiddleButton, {}, QPoint(600, y));
        QTest::mouseMove(&w, QPoint(500, y));
        QTest::mouseMove(&w, QPoint(400, y));
        QTest::mouseRelease(&w, Qt::MiddleButton, {}, QPoint(400, y));
        const double moved = double(w.viewStartUs()) - double(before);
        const double expected = 200.0 * zoomedSpan / plotWidth;
        QVERIFY2(std::abs(moved - expected) < 0.05 * expected,
                 qPrintable(QStringLiteral("%1 vs %2").arg(moved).arg(expected)));
        QCOMPARE(spanUs(w), zoomedSpan); // panning keeps the zoom

        // Shift+left-drag rightwards pans back, and selects no range.
        const uint64_t beforeShift = w.viewStartUs();
        QTest::mousePress(&w, Qt::LeftButton, Qt::ShiftModifier, QPoint(400, y));
        QTest::mouseMove(&w, QPoint(500, y));
        QTest::mouseRelease(&w, Qt::LeftButton, Qt::ShiftModifier, QPoint(500, y));
        QVERIFY(w.viewStartUs() < beforeShift);
        QCOMPARE(ranges.count(), 0);

        // Zoomed, the plain wheel moves through time.
        const uint64_t beforeWheel = w.viewStartUs();
        wheel(&w, QPoint(x, y), -120, {});
        QVERIFY(w.viewStartUs() > beforeWheel);
        QCOMPARE(spanUs(w), zoomedSpan);

        // A plain left drag still selects a range, now within the zoomed span.
        const int a = w.laneRect(1, 0).left() + 100, b = a + 200;
        QTest::mousePress(&w, Qt::LeftButton, {}, QPoint(a, y));
        QTest::mouseMove(&w, QPoint(b, y));
        QTest::mouseRelease(&w, Qt::LeftButton, {}, QPoint(b, y));
        QCOMPARE(ranges.count(), 1);
        const uint64_t r0 = ranges.at(0).at(0).toULongLong(), r1 = ranges.at(0).at(1).toULongLong();
        QVERIFY(r0 >= w.viewStartUs() && r1 <= w.viewEndUs());
        const double selected = double(r1 - r0), wanted = 200.0 * zoomedSpan / plotWidth;
        QVERIFY2(std::abs(selected - wanted) < 0.05 * wanted,
                 qPrintable(QString::number(selected)));

        // Ctrl+wheel out past the whole recording, or a double-click, shows it all.
        wheel(&w, QPoint(x, y), 2 * 120, Qt::ControlModifier);
        QTest::mouseDClick(&w, Qt::LeftButton, {}, QPoint(x, y));
        QVERIFY(!w.zoomed());
        QCOMPARE(spanUs(w), full);
        wheel(&w, QPoint(x, y), 3 * 120, Qt::ControlModifier);
        wheel(&w, QPoint(x, y), -10 * 120, Qt::ControlModifier);
        QVERIFY(!w.zoomed());
    }

    void hoverTellsTimeAndStates() {
        const TimelineSnapshot source = syntheticTimeline(2000, true);
        TimelineWidget w;
        w.resize(1000, 500);
        w.setSnapshot(source);
        w.setAllExpanded(true); // the sub-lanes
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Over the waiting thread at 1.5 s: the time, the thread, and its states.
        const QPoint waiting(w.xAt(kT0 + 1'500'000), w.laneRect(3, 1).center().y());
        QHelpEvent help(QEvent::ToolTip, waiting, w.mapToGlobal(waiting));
        QApplication::sendEvent(&w, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString text = QToolTip::text();
        QVERIFY2(text.contains(QStringLiteral("1.50")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Thread 3")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Waiting for GIL: 100.0 %")), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("GIL held")), qPrintable(text)); // none: not said
        QVERIFY2(text.contains(QStringLiteral("Ctrl+wheel")),
                 qPrintable(text)); // discoverable
        // Before it started waiting it has no samples there.
        const QString early =
            w.toolTipAt(QPoint(w.xAt(kT0 + 300'000), w.laneRect(3, 1).center().y()));
        QVERIFY2(early.contains(QStringLiteral("0.30")) &&
                     early.contains(QStringLiteral("No samples")),
                 qPrintable(early));
        // The main thread holds the GIL on a CPU.
        const QString busy =
            w.toolTipAt(QPoint(w.xAt(kT0 + 300'000), w.laneRect(1, 0).center().y()));
        QVERIFY2(busy.contains(QStringLiteral("GIL held: 100.0 %")) &&
                     busy.contains(QStringLiteral("of which on a CPU: 100.0 %")) &&
                     busy.contains(QStringLiteral("(main)")),
                 qPrintable(busy));
    }

    // The process's counters (issue 38) draw as tracks above the threads, on their time
    // axis: memory steps from 100 to 300 MB at 1 s, the pool from 4 to 40 threads at
    // 1.5 s, one core busy. Hover tells the value then; a range its min, max and change.
    void counterTracksShowTheProcess() {
        LiveTimeline timeline;
        {
            SyntheticFeed feed(timeline);
            const FrameId work = feed.frame("app.py", 1, "work");
            for (uint64_t i = 0; i < 2000; ++i)
                feed.add(1, TS::HasGil | TS::OnCpu | TS::MainThread, {work}, {kT0 + i * 1000});
            for (uint64_t ms = 0; ms <= 2000; ms += 20)
                timeline.addCounters({kT0 + ms * 1000, (ms < 1000 ? 100u : 300u) << 20,
                                      ms < 1500 ? 4u : 40u, ms * 1'000'000});
            timeline.finish({});
        }
        TimelineWidget w;
        w.resize(1000, 400);
        w.setSnapshot(timeline.snapshot());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(TimelineWidget::counterTrackNames().size(), 5);
        QVERIFY(w.counterTrackRect(4).isEmpty()); // one thread: no parallelism to show
        for (int i = 0; i < 4; ++i) {
            QVERIFY(!w.counterTrackRect(i).isEmpty());
            QVERIFY(w.counterTrackRect(i).bottom() < w.trackRect(1).top());
        }
        const int memY = w.counterTrackRect(0).center().y();
        const QString low = w.toolTipAt({w.xAt(kT0 + 500'000), memY});
        QVERIFY2(low.contains(QStringLiteral("100.0 MB")), qPrintable(low));
        const QString high = w.toolTipAt({w.xAt(kT0 + 1'200'000), memY});
        QVERIFY2(high.contains(QStringLiteral("300.0 MB")), qPrintable(high));
        const QString pool =
            w.toolTipAt({w.xAt(kT0 + 1'700'000), w.counterTrackRect(1).center().y()});
        QVERIFY2(pool.contains(QStringLiteral("40 threads")), qPrintable(pool));
        const QString cpu = w.toolTipAt({w.xAt(kT0 + 700'000), w.counterTrackRect(2).center().y()});
        QVERIFY2(cpu.contains(QStringLiteral("1.00 cores")), qPrintable(cpu));
        w.setHighlightRange(true, kT0 + 500'000, kT0 + 1'200'000);
        const QString range = w.toolTipAt({w.xAt(kT0 + 1'100'000), memY});
        QVERIFY2(range.contains(QStringLiteral("In the selected range")) &&
                     range.contains(QStringLiteral("min 100.0 MB, max 300.0 MB, change +200.0 MB")),
                 qPrintable(range));
        // Drawn as the values say, from the recording's low to its peak: at 1.2 s the
        // memory track is filled to its top, at 0.5 s (the low) only its floor.
        const QImage image = w.grab().toImage();
        const QRect mem = w.counterTrackRect(0);
        const QColor base = w.palette().color(QPalette::Base);
        const int nearTop = mem.top() + 4;
        QVERIFY(image.pixelColor(w.xAt(kT0 + 1'200'000), nearTop) != base);
        QCOMPARE(image.pixelColor(w.xAt(kT0 + 500'000), nearTop), base);
        QVERIFY(image.pixelColor(w.xAt(kT0 + 500'000), mem.bottom() - 2) != base);
        // A recording without counters draws no such tracks: of two threads, only how
        // many ran at once; of one, none.
        w.setSnapshot(syntheticTimeline(2000));
        QVERIFY(w.counterTrackRect(0).isEmpty());
        QVERIFY(!w.counterTrackRect(4).isEmpty());
        QVERIFY(w.trackRect(1).top() > w.counterTrackRect(4).bottom());
        LiveTimeline single;
        {
            SyntheticFeed feed(single);
            const FrameId work = feed.frame("app.py", 1, "work");
            for (uint64_t i = 0; i < 100; ++i)
                feed.add(1, TS::HasGil | TS::OnCpu | TS::MainThread, {work}, {kT0 + i * 1000});
            single.finish({});
        }
        w.setSnapshot(single.snapshot());
        QVERIFY(w.counterTrackRect(4).isEmpty());
        QCOMPARE(w.trackRect(1).top(), TimelineWidget::headerHeight());
    }

    // Issue 49: the parallelism track. Four threads want to run Python throughout; on a
    // free-threaded build with two CPUs, two run at once, and from 1.0 to 1.1 s a pause
    // stops three of them while the fourth collects; under a GIL one runs at a time.
    void parallelismTrackShowsThreadsAtOnce() {
        const auto feedFour = [](LiveTimeline& timeline, bool freeThreaded) {
            RecordingInfo info;
            info.sampleIntervalUs = 1000;
            info.freeThreaded = freeThreaded;
            info.cpus = 2;
            SyntheticFeed feed(timeline, info);
            const FrameId work = feed.frame("app.py", 1, "work");
            for (uint64_t i = 0; i < 2000; ++i) {
                const bool paused = freeThreaded && i >= 1000 && i < 1100;
                for (uint64_t tid = 1; tid <= 4; ++tid) {
                    uint32_t status = TS::HasGil | TS::OnCpu;
                    if (!freeThreaded && tid != 1 + i % 4) status = TS::GilRequested;
                    if (paused && tid != 1) status = TS::GilRequested;
                    feed.add(tid, status, {work}, {kT0 + i * 1000});
                }
            }
            timeline.finish({});
        };
        LiveTimeline ft;
        feedFour(ft, true);
        TimelineWidget w;
        w.resize(1000, 400);
        w.setSnapshot(ft.snapshot());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QRect track = w.counterTrackRect(4);
        QVERIFY(!track.isEmpty());
        QVERIFY(track.bottom() < w.trackRect(1).top());
        const QString busy = w.toolTipAt({w.xAt(kT0 + 500'000), track.center().y()});
        QVERIFY2(busy.contains(QStringLiteral("2.00 threads ran Python at once, 4.00 wanted to "
                                              "(2 CPUs)")),
                 qPrintable(busy));
        const QString paused = w.toolTipAt({w.xAt(kT0 + 1'050'000), track.center().y()});
        QVERIFY2(paused.contains(QStringLiteral("1.00 threads ran Python")) &&
                     paused.contains(QStringLiteral("stop-the-world pauses stopped 3.00")),
                 qPrintable(paused));
        // Drawn: full height while two run, a third of it... one of two CPUs: half.
        const QImage image = w.grab().toImage();
        const QColor base = w.palette().color(QPalette::Base);
        QVERIFY(image.pixelColor(w.xAt(kT0 + 500'000), track.top() + 4) != base);
        QCOMPARE(image.pixelColor(w.xAt(kT0 + 1'050'000), track.top() + 5), base);
        QVERIFY(image.pixelColor(w.xAt(kT0 + 1'050'000), track.bottom() - 3) != base);

        LiveTimeline gil;
        feedFour(gil, false);
        w.setSnapshot(gil.snapshot());
        const QString one = w.toolTipAt({w.xAt(kT0 + 500'000), track.center().y()});
        QVERIFY2(one.contains(QStringLiteral("1.00 threads held the GIL at once, 4.00 wanted to")),
                 qPrintable(one));
    }

    // Issue 48: at 1366×768 the eighth thread is below the fold; scrolled to it, the
    // legend, the time axis and the counter tracks stay at the top of what is visible,
    // and the pointer there asks them, not the tracks that scrolled under them.
    void headerStaysPinnedWhenTheTracksScroll() {
        LiveTimeline timeline;
        {
            SyntheticFeed feed(timeline);
            const FrameId work = feed.frame("app.py", 1, "work");
            for (uint64_t i = 0; i < 2000; ++i)
                for (uint64_t tid = 1; tid <= 12; ++tid)
                    feed.add(tid, TS::OnCpu | (tid == 1 ? TS::MainThread : 0), {work},
                             {kT0 + i * 1000});
            for (uint64_t ms = 0; ms <= 2000; ms += 20)
                timeline.addCounters({kT0 + ms * 1000, 100u << 20, 12, ms * 1'000'000});
            timeline.finish({});
        }
        QScrollArea area;
        auto* w = new TimelineWidget;
        area.setWidget(w);
        area.setWidgetResizable(true);
        area.resize(1000, 260);
        w->setSnapshot(timeline.snapshot());
        w->setAllExpanded(true); // taller than the area
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QCOMPARE(w->pinnedTop(), 0);
        const QRect memory = w->counterTrackRect(0);
        const QPoint onMemory(w->xAt(kT0 + 1'000'000), memory.center().y());
        QVERIFY(w->toolTipAt(onMemory).contains(QStringLiteral("100.0 MB")));
        area.verticalScrollBar()->setValue(area.verticalScrollBar()->maximum());
        QTRY_VERIFY(w->pinnedTop() > memory.bottom()); // scrolled past the counters
        const int pin = w->pinnedTop();
        // The pointer on the pinned memory track asks it, not the track beneath.
        const QString tip = w->toolTipAt(onMemory + QPoint(0, pin));
        QVERIFY2(tip.contains(QStringLiteral("100.0 MB")), qPrintable(tip));
        // Drawn there: the legend's first swatch (GIL held) and the memory track's fill.
        const QImage image = w->grab().toImage();
        QCOMPARE(image.pixelColor(timeline::kMargin + 5, pin + timeline::kMargin + 10),
                 timeline::kLanes[0].color);
        QVERIFY(image.pixelColor(onMemory.x(), pin + memory.bottom() - 2) !=
                w->palette().color(QPalette::Base));
        // Below the pinned header, the last track is where the layout puts it.
        QVERIFY(w->trackRect(12).bottom() > pin + w->pinnedHeight());
    }

    // The interpreter's GC counts on the GC track: a full collection at 1.2 s is a
    // full-height mark there and nowhere else; hover and a range count the collections.
    void gcTrackMarksCollections() {
        LiveTimeline timeline;
        {
            SyntheticFeed feed(timeline);
            const FrameId work = feed.frame("app.py", 1, "work");
            for (uint64_t i = 0; i < 2000; ++i)
                feed.add(1, TS::HasGil | TS::OnCpu | TS::MainThread, {work}, {kT0 + i * 1000});
            for (uint64_t ms = 0; ms <= 2000; ms += 20) {
                ProcessCounters c{kT0 + ms * 1000, 100u << 20, 4, ms * 1'000'000};
                c.gcKnown = true;
                // Ten young collections a reading; one full one at 1.2 s.
                c.gcCollections = {ms / 2, 0, ms >= 1200 ? 1u : 0u};
                c.gcCollected = ms * 3;
                timeline.addCounters(c);
            }
            timeline.finish({});
        }
        TimelineWidget w;
        w.resize(1000, 400);
        w.setSnapshot(timeline.snapshot());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QRect gcTrack = w.counterTrackRect(3);
        const QString at = w.toolTipAt({w.xAt(kT0 + 1'190'000), gcTrack.center().y()});
        QVERIFY2(at.contains(QStringLiteral("collections: gen 0 ×10, gen 1 ×0, gen 2 ×1")),
                 qPrintable(at));
        w.setHighlightRange(true, kT0 + 500'000, kT0 + 1'500'000);
        const QString range = w.toolTipAt({w.xAt(kT0 + 1'000'000), gcTrack.center().y()});
        QVERIFY2(range.contains(QStringLiteral("gen 0 ×500, gen 1 ×0, gen 2 ×1")) &&
                     range.contains(QStringLiteral("3000 objects freed")),
                 qPrintable(range));
        w.setHighlightRange(false, 0, 0);
        // The mark: the GC track's top row is painted in the 1.2 s column only (no sample
        // is in GC, so nothing else is drawn there).
        const QImage image = w.grab().toImage();
        const QColor base = w.palette().color(QPalette::Base);
        const int top = gcTrack.top() + 3;
        const int markX = w.xAt(kT0 + 1'200'000);
        bool marked = false;
        for (int x = markX - 1; x <= markX + 1; ++x)
            marked = marked || image.pixelColor(x, top) != base;
        QVERIFY(marked);
        QCOMPARE(image.pixelColor(w.xAt(kT0 + 600'000), top), base);
        QCOMPARE(image.pixelColor(w.xAt(kT0 + 1'800'000), top), base);
    }

    // A free-threaded target (issues 37, 49) has no GIL: its GIL bits say the thread is
    // attached (runs Python) or stopped by a stop-the-world request, and the hover and the
    // lanes say so, never "GIL".
    void freeThreadedNamesAttachedStates() {
        TimelineSnapshot source = syntheticTimeline(2000);
        source.freeThreaded = true;
        TimelineWidget w;
        w.resize(1000, 500);
        w.setSnapshot(source);
        w.setAllExpanded(true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString busy =
            w.toolTipAt(QPoint(w.xAt(kT0 + 300'000), w.laneRect(1, 0).center().y()));
        QVERIFY2(busy.contains(QStringLiteral("Running Python: 100.0 %")), qPrintable(busy));
        QVERIFY2(!busy.contains(QStringLiteral("GIL")), qPrintable(busy));
        const QString name = w.toolTipAt(w.nameRect(source.threads[0].threadId).center());
        QVERIFY2(!name.contains(QStringLiteral("GIL")), qPrintable(name));
        QCOMPARE(w.laneName(0), QStringLiteral("Running Python"));
        QCOMPARE(w.laneName(1), QStringLiteral("Stopped by stop-the-world"));
        // The same snapshot with a GIL names it: the check above can fail.
        source.freeThreaded = false;
        w.setSnapshot(source);
        QVERIFY(w.toolTipAt(QPoint(w.xAt(kT0 + 300'000), w.laneRect(1, 0).center().y()))
                    .contains(QStringLiteral("GIL held")));
        QCOMPARE(w.laneName(0), QStringLiteral("GIL held"));
    }

    // Compact tracks: one 20-24 px strip per thread coloured by its dominant
    // state; the twisty (or a double-click on the name) shows the sub-lanes;
    // clicking names selects tracks (Ctrl toggles, Shift extends, a second click
    // on the only one selects all threads again); a name's tooltip gives id,
    // samples and shares.
    void compactTracksSelectAndExpand() {
        const TimelineSnapshot source = syntheticTimeline(2000, true);
        TimelineWidget w;
        w.resize(1000, 400);
        w.setSnapshot(source);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(TimelineWidget::trackHeight() >= 20 && TimelineWidget::trackHeight() <= 24);
        for (uint64_t tid : {1, 2, 3}) {
            QCOMPARE(w.trackRect(tid).height(), TimelineWidget::trackHeight());
            QVERIFY(w.laneRect(tid, 0).isEmpty());
        }
        const QImage image = w.grab().toImage();
        auto colourAt = [&](uint64_t tid, uint64_t t) {
            return image.pixelColor(w.xAt(t), w.trackRect(tid).center().y());
        };
        const QColor holder = colourAt(1, kT0 + 500'000);   // GIL held on CPU: green
        const QColor waiter = colourAt(3, kT0 + 1'500'000); // waiting: orange
        const QColor before = colourAt(3, kT0 + 300'000);   // no samples: the background
        QVERIFY2(holder.green() > holder.red() + 40 && holder.green() > holder.blue() + 20,
                 qPrintable(holder.name()));
        QVERIFY2(waiter.red() > waiter.blue() + 60 && waiter.red() > waiter.green(),
                 qPrintable(waiter.name()));
        QVERIFY2(std::abs(before.red() - before.blue()) < 20, qPrintable(before.name()));

        QSignalSpy heights(&w, &TimelineWidget::contentHeightChanged);
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.twistyRect(3).center());
        QVERIFY(w.expanded(3));
        QVERIFY(!w.laneRect(3, 1).isEmpty());
        QVERIFY(w.trackRect(3).height() > 4 * TimelineWidget::trackHeight());
        QCOMPARE(heights.count(), 1);
        QVERIFY(w.selectedThreads().empty()); // the twisty does not select
        QTest::mouseDClick(&w, Qt::LeftButton, {}, w.nameRect(2).center());
        QVERIFY(w.expanded(2));

        QSignalSpy selections(&w, &TimelineWidget::threadSelectionChanged);
        auto click = [&](uint64_t tid, Qt::KeyboardModifiers m) {
            QTest::mouseClick(&w, Qt::LeftButton, m, w.nameRect(tid).center());
            return w.selectedThreads();
        };
        using Ids = std::vector<uint64_t>;
        QCOMPARE(click(1, {}), Ids{1});
        QCOMPARE(click(3, Qt::ControlModifier), (Ids{1, 3}));
        QCOMPARE(click(1, Qt::ControlModifier), Ids{3});
        QCOMPARE(click(2, {}), Ids{2});
        QCOMPARE(click(3, Qt::ShiftModifier), (Ids{2, 3}));
        QCOMPARE(click(2, {}), Ids{2});
        QCOMPARE(click(2, {}), Ids{}); // the only one selected: all threads again
        QCOMPARE(selections.count(), 7);
        QCOMPARE(selections.last().at(0).value<Ids>(), Ids{});
        // Set from outside (back/forward): no signal.
        w.setSelectedThreads({3});
        QCOMPARE(w.selectedThreads(), Ids{3});
        QCOMPARE(selections.count(), 7);

        const QString tip = w.toolTipAt(w.nameRect(3).center());
        QVERIFY2(tip.contains(QStringLiteral("Thread 3")) &&
                     tip.contains(QStringLiteral("Thread id 3 · 1000 samples in all")) &&
                     tip.contains(QStringLiteral("Waiting for GIL: 100.0 %")),
                 qPrintable(tip));
        // In a range before it started waiting, it has none.
        w.setHighlightRange(true, kT0, kT0 + 900'000);
        const QString early = w.toolTipAt(w.nameRect(3).center());
        QVERIFY2(early.contains(QStringLiteral("\n0 samples between 0.000 and 0.9")),
                 qPrintable(early));
    }

    void shortRecordingFillsTheWidth() {
        // 50 ms of samples: the axis ends with the recording, not at one second.
        const TimelineSnapshot source = syntheticTimeline(50);
        TimelineWidget w;
        w.resize(1000, 400);
        w.setSnapshot(source);
        w.setAllExpanded(true); // the sub-lanes
        const QRect lane = w.laneRect(1, 0);
        QVERIFY(!lane.isEmpty());
        const int end = w.xAt(kT0 + 49'000);
        QVERIFY2(end > lane.right() - lane.width() / 10, qPrintable(QString::number(end)));
        QVERIFY(spanUs(w) < 100'000);
    }

    // Issue 48: a track's column stacks the states in their proportions, in the legend's
    // colours, against the model's own counts: thread 1 holds the GIL for a second, then
    // sleeps for one; thread 2 alternates, sample by sample, between a CPU (no GIL) and a
    // lock. Zoomed past the buckets the columns come exact from the model, and at full
    // zoom single samples are drawn. The hover's shares add up to 100 %.
    void tracksDrawStatesInTheirProportions() {
        auto model = std::make_shared<ProfileModel>();
        LiveTimeline timeline;
        TeeSink both;
        both.add(model.get());
        both.add(&timeline);
        {
            SyntheticFeed feed(both);
            const FrameId work = feed.frame("app.py", 1, "work");
            for (uint64_t i = 0; i < 2000; ++i) {
                const uint64_t t = kT0 + i * 1000;
                feed.add(1,
                         i < 1000 ? TS::HasGil | TS::OnCpu | TS::MainThread
                                  : withWaitReason(TS::MainThread, WaitReason::Sleep),
                         {work}, {t});
                feed.add(2, i % 2 ? withWaitReason(0, WaitReason::Lock) : TS::OnCpu, {work}, {t});
            }
            both.finish({});
        }
        TimelineWidget w;
        w.resize(1000 + 190 + 8, 300);
        TimelineDetail detail(&w, nullptr);
        detail.setModel(model);
        w.setSnapshot(timeline.snapshot());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // 10 ms buckets over ~2 ms columns: the view is finer than the buckets.
        QVERIFY(w.detailWanted());
        detail.refresh();
        QTRY_VERIFY(w.showsDetail());

        const QImage image = w.grab().toImage();
        // The strip's stacked part: the rows between its inset and its band.
        const auto stackPixels = [&](uint64_t tid, int x, const QColor& color) {
            const QRect track = w.trackRect(tid);
            int n = 0;
            for (int y = track.top() + 3; y < track.top() + 22 - 3 - 3; ++y)
                if (image.pixelColor(x, y) == color) ++n;
            return n;
        };
        const int stackHeight = 22 - 2 * 3 - 3;
        const QColor gil = TimelineWidget::trackStateColor(int(TrackState::GilHeld));
        const QColor sleep = TimelineWidget::trackStateColor(int(TrackState::SleepPoll));
        const QColor cpu = TimelineWidget::trackStateColor(int(TrackState::OnCpu));
        const QColor lock = TimelineWidget::trackStateColor(int(TrackState::LockWait));
        const int left = w.plotLeft(), width = w.plotWidth();
        int cpuPixels = 0, lockPixels = 0;
        for (int x = left + 5; x < left + width - 5; ++x) {
            const double sec = double(w.timeAt(x) - kT0) / 1e6;
            if (sec < 0.98) QCOMPARE(stackPixels(1, x, gil), stackHeight);
            if (sec > 1.02 && sec < 1.98) QCOMPARE(stackPixels(1, x, sleep), stackHeight);
            // Half and half, each column (rounding: one pixel).
            const int c = stackPixels(2, x, cpu), l = stackPixels(2, x, lock);
            QCOMPARE(c + l, stackHeight);
            QVERIFY2(std::abs(c - l) <= 1,
                     qPrintable(QStringLiteral("%1: %2 / %3").arg(x).arg(c).arg(l)));
            cpuPixels += c;
            lockPixels += l;
        }
        // The model's own counts for thread 2: as many on a CPU as waiting on the lock.
        ProfileFilter two;
        two.threads = {2};
        two.state = StateFilter::OnCpu;
        const uint64_t onCpu = model->query(two).value()->matchedSamples;
        two.state = StateFilter::LockWait;
        const uint64_t onLock = model->query(two).value()->matchedSamples;
        QCOMPARE(onCpu, onLock);
        QVERIFY(std::abs(cpuPixels - lockPixels) <= width / 50);
        // The hover: the states' shares add up to 100 %.
        const QString tip = w.toolTipAt(QPoint(left + width / 2, w.trackRect(2).center().y()));
        double sum = 0;
        for (const QString& line : tip.split('\n'))
            if (line.startsWith("  ") && !line.contains("of which") && line.endsWith(" %"))
                sum += line.section(": ", 1).chopped(2).toDouble();
        QVERIFY2(std::abs(sum - 100.0) < 0.2, qPrintable(tip));

        // Full zoom: 5 ms over the whole width, a sample 200 pixels wide. Each column
        // is one sample's state, whole.
        for (int i = 0; i < 20 && w.viewEndUs() - w.viewStartUs() > 5'000; ++i)
            w.zoomAt(left + width / 2, 0.5);
        QVERIFY(w.viewEndUs() - w.viewStartUs() <= 5'000);
        detail.refresh();
        QTRY_VERIFY(w.showsDetail());
        const QImage zoomed = w.grab().toImage();
        int solid = 0;
        for (int x = left + 2; x < left + width - 2; ++x) {
            const QColor top = zoomed.pixelColor(x, w.trackRect(2).top() + 4);
            const QColor bottom = zoomed.pixelColor(x, w.trackRect(2).top() + 22 - 7);
            if (top == bottom && (top == cpu || top == lock)) ++solid;
        }
        QVERIFY2(solid > (width - 4) * 9 / 10, qPrintable(QString::number(solid)));
    }

    void busiestFirstAndFoldedByState() {
        const TimelineSnapshot source = syntheticTimeline(2000, true);
        TimelineWidget w;
        w.resize(1000, 500);
        w.setSnapshot(source);
        // All: on CPU first (thread 1), then by samples: the waiter (1000) after
        // the sleeper (2000).
        QCOMPARE(w.shownThreads(), (std::vector<uint64_t>{1, 2, 3}));
        QVERIFY(w.foldedThreads().empty());
        w.setStateFilter(StateFilter::WaitingForGil);
        QCOMPARE(w.shownThreads(), (std::vector<uint64_t>{3}));
        QCOMPARE(w.foldedThreads(), (std::vector<uint64_t>{1, 2}));
        QVERIFY(!w.noteRect().isEmpty());
        QVERIFY(w.laneRect(1, 0).isEmpty());
        // Clicking the note shows the folded threads as thin rows; again hides
        // them.
        const int folded = w.sizeHint().height();
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.noteRect().center());
        QVERIFY(w.foldedShown());
        QVERIFY(w.sizeHint().height() > folded);
        QTest::mouseClick(&w, Qt::LeftButton, {}, w.noteRect().center());
        QVERIFY(!w.foldedShown());
        w.setStateFilter(StateFilter::All);
        QVERIFY(w.noteRect().isEmpty());
    }

    // four_threads.py: contender-0..3 spin, sleeper and in-except sleep (in-except inside
    // an except block), main waits. The threads carry their Python names on every version.
    void realTargetLanesNamesAndOrder_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters());
    }
    void realTargetLanesNamesAndOrder() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, QStringLiteral("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject threads = target.readyInfo().value(QStringLiteral("threads")).toObject();
        auto tid = [&](const char* name) {
            return uint64_t(threads.value(QLatin1String(name)).toInteger());
        };
        const int pid = int(target.pid());
        auto session = RecordingSession::open(pid, SessionOptions{});
        QVERIFY2(session, session ? "" : session.error().message.c_str());
        (*session)->startSampling();
        TimelineWidget w;
        w.resize(1200, 1300); // seven threads, each with its eight lanes shown
        w.show();
        // Until every thread was seen, in-except with an exception, and names were read:
        // Python's own (threading's registry) on every version; 3.14+ also names the OS's.
        const QString expectedName = QStringLiteral("contender-0");
        if (interpreter.minor >= 14) QCOMPARE(threadComm(pid, tid("contender-0")), expectedName);
        auto onCpu = [&](uint64_t id) {
            uint64_t n = 0;
            if (const auto* t = threadOf(w.snapshot(), id))
                for (const TimelineBucket& b : t->buckets)
                    n += b.onCpu;
            return n;
        };
        // ... and every contender was caught on CPU often enough to outrank a
        // sleeper caught waking (on a loaded machine a short recording can miss one
        // entirely).
        QVERIFY(QTest::qWaitFor(
            [&] {
                w.setSnapshot((*session)->timeline());
                const TimelineSnapshot& s = w.snapshot();
                if (s.threads.size() < 7 || exceptionSamples(s, tid("in-except")) < 50)
                    return false;
                if (s.counters.size() < 2) return false; // the process's counters, too
                if (!w.threadTitle(tid("contender-0")).contains(expectedName)) return false;
                for (const char* c : {"contender-0", "contender-1", "contender-2", "contender-3"})
                    if (onCpu(tid(c)) < 50) return false;
                return true;
            },
            60000));
        (*session)->requestStop();
        (*session)->finish();
        w.setSnapshot((*session)->timeline());
        w.setAllExpanded(true);
        // Python's names next to the id; the main thread keeps its id (threading's
        // "MainThread" says nothing).
        for (const char* name : {"contender-0", "contender-3", "sleeper", "in-except"}) {
            const QString title = w.threadTitle(tid(name));
            QVERIFY2(title.startsWith(QStringLiteral("Thread %1").arg(tid(name))),
                     qPrintable(title));
            QVERIFY2(title.contains(QLatin1String(name)), qPrintable(title));
        }
        // The header keeps the name whole where the name alone fits; the id gives way
        // (issue 38: "Thread 2737…tp-worker_2" hid the name the user gave).
        const QFontMetrics metrics(w.font());
        for (const char* name : {"contender-0", "sleeper"}) {
            const QString full = w.trackLabel(tid(name), metrics, 10000);
            QVERIFY2(full.startsWith(QLatin1String(name)) &&
                         full.contains(QString::number(tid(name))),
                     qPrintable(full));
            const int narrow =
                metrics.horizontalAdvance(QLatin1String(name) + QStringLiteral(" ·…"));
            const QString cut = w.trackLabel(tid(name), metrics, narrow);
            QVERIFY2(cut.startsWith(QLatin1String(name)), qPrintable(cut));
        }
        QVERIFY(w.threadTitle(tid("main")).contains(QStringLiteral("(main)")));
        QVERIFY(!w.threadTitle(tid("main")).contains(QStringLiteral("MainThread")));

        // The exception lane shows the thread inside `except`, and only it.
        const QRect lane = w.laneRect(tid("in-except"), kExceptionLane);
        QVERIFY(!lane.isEmpty());
        QCOMPARE(TimelineWidget::laneNames().at(kExceptionLane), QStringLiteral("Exception"));
        auto redPixels = [&](const QRect& r) {
            const QImage image = w.grab(r).toImage();
            int red = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const QColor c = image.pixelColor(x, y);
                    if (c.red() > c.green() + 60 && c.red() > c.blue() + 60) ++red;
                }
            return red;
        };
        QVERIFY2(redPixels(lane) > lane.width() * lane.height() / 4,
                 qPrintable(QString::number(redPixels(lane))));
        QCOMPARE(redPixels(w.laneRect(tid("sleeper"), kExceptionLane)), 0);
        QCOMPARE(exceptionSamples(w.snapshot(), tid("contender-0")), 0u);

        // As first seen, by default: the tracks in the order of their first samples, the
        // main thread first among those of the first tick. (Usually the main thread leads;
        // on a loaded machine its first read may be torn and dropped, and then it does
        // not, so the rule is checked against the samples themselves.) Laid out afresh, as
        // choosing the order does: a pointer resting on the widget keeps the tracks in the
        // order they appeared in across snapshots (nothing moves under it), which a thread
        // whose first batch was held back for a snapshot's copy can precede.
        w.setTrackOrder(TimelineWidget::TrackOrder::Busiest);
        w.setTrackOrder(TimelineWidget::TrackOrder::FirstSeen);
        const std::vector<uint64_t> firstSeen = w.shownThreads();
        for (size_t i = 1; i < firstSeen.size(); ++i) {
            const ThreadTimeline* a = threadOf(w.snapshot(), firstSeen[i - 1]);
            const ThreadTimeline* b = threadOf(w.snapshot(), firstSeen[i]);
            QVERIFY(a && b);
            QVERIFY2(a->firstUs < b->firstUs || (a->firstUs == b->firstUs && !b->mainThread),
                     qPrintable(QStringLiteral("%1 (first at %3 us) before %2 (first at %4 us)")
                                    .arg(a->threadId)
                                    .arg(b->threadId)
                                    .arg(a->firstUs)
                                    .arg(b->firstUs)));
        }
        const ThreadTimeline* main = threadOf(w.snapshot(), uint64_t(target.pid()));
        QVERIFY(main);
        if (main->firstUs == threadOf(w.snapshot(), firstSeen.front())->firstUs)
            QCOMPARE(firstSeen.front(), uint64_t(target.pid()));
        // Busiest first, when asked: on CPU, the four contenders lead, each no busier
        // than the one above.
        w.setTrackOrder(TimelineWidget::TrackOrder::Busiest);
        w.setStateFilter(StateFilter::OnCpu);
        const std::vector<uint64_t> shown = w.shownThreads();
        QVERIFY(shown.size() >= 4);
        const std::set<uint64_t> contenders{tid("contender-0"), tid("contender-1"),
                                            tid("contender-2"), tid("contender-3")};
        QCOMPARE(std::set<uint64_t>(shown.begin(), shown.begin() + 4), contenders);
        for (size_t i = 1; i < shown.size(); ++i)
            QVERIFY(onCpu(shown[i - 1]) >= onCpu(shown[i]));
        // The sleepers have no on-CPU samples (or next to none, caught waking):
        // folded or last.
        const std::vector<uint64_t> folded = w.foldedThreads();
        QVERIFY2(std::count(folded.begin(), folded.end(), tid("sleeper")) ||
                     onCpu(tid("sleeper")) <= onCpu(shown[3]) / 10,
                 "sleeper neither folded nor at the bottom");
        // Exception: in-except alone is drawn, every other thread folded.
        w.setStateFilter(StateFilter::Exception);
        QCOMPARE(w.shownThreads(), (std::vector<uint64_t>{tid("in-except")}));
        QCOMPARE(w.foldedThreads().size(), w.snapshot().threads.size() - 1);
    }

    void filteredExportOfALiveRecording() {
        const QList<Interpreter> all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        const Interpreter interpreter = all.last();
        qInfo("tested: %s", qPrintable(interpreter.label));
        TargetProcess target(interpreter, QStringLiteral("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject threads = target.readyInfo().value(QStringLiteral("threads")).toObject();
        Harness h;
        QTRY_VERIFY_WITH_TIMEOUT(
            (h.window.picker()->refreshNow(), h.window.picker()->selectPid(int(target.pid()))),
            30000);
        QVERIFY(gilscope::test::clickAction(&h.window, h.window.recordAction()));
        QTRY_VERIFY_WITH_TIMEOUT(h.window.recording(), 60000);
        // Enough samples that every state shows: in-except has an exception
        // throughout.
        QTRY_VERIFY_WITH_TIMEOUT(h.window.figures()->stats().okTicks >= 500, 60000);
        QVERIFY(gilscope::test::clickAction(&h.window, h.window.stopAction()));
        QTRY_VERIFY_WITH_TIMEOUT(!h.window.recording(), 30000);
        QVERIFY(h.window.exportAction()->isEnabled());
        const AnalysisResultPtr everything = chooseState(h.window, StateFilter::All);
        QVERIFY(everything);
        QTemporaryDir dir;

        // On CPU: only the spinning contenders (the sleepers never run).
        std::map<qint64, qint64> perThread;
        exportFiltered(h, StateFilter::OnCpu, dir.filePath(QStringLiteral("cpu.json")), &perThread);
        if (QTest::currentTestFailed()) return;
        for (const char* idle : {"sleeper", "in-except", "main"})
            QCOMPARE(perThread[threads.value(QLatin1String(idle)).toInteger()], 0);
        qint64 kept = 0;
        for (const auto& [id, n] : perThread)
            kept += n;
        QVERIFY(uint64_t(kept) < everything->snapshot->matchedSamples);

        // Exception: the thread inside `except` and no other.
        exportFiltered(h, StateFilter::Exception, dir.filePath(QStringLiteral("exc.json")),
                       &perThread);
        if (QTest::currentTestFailed()) return;
        const qint64 inExcept = threads.value(QStringLiteral("in-except")).toInteger();
        QVERIFY(perThread[inExcept] > 0);
        for (const auto& [id, n] : perThread)
            if (id != inExcept) QCOMPARE(n, 0);
        QVERIFY(h.errors.isEmpty());
    }

    // Recording › Add marker… while recording: the mark is drawn across the tracks, and
    // hovering its line names it.
    void markerFromTheWindow() {
        const QList<Interpreter> all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.last(), QStringLiteral("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        h.window.prompts().askMarkText = [] { return QStringLiteral("checkout starts"); };
        QVERIFY(!h.window.markAction()->isEnabled()); // nothing to mark yet
        QTRY_VERIFY_WITH_TIMEOUT(
            (h.window.picker()->refreshNow(), h.window.picker()->selectPid(int(target.pid()))),
            30000);
        QVERIFY(gilscope::test::clickAction(&h.window, h.window.recordAction()));
        QTRY_VERIFY_WITH_TIMEOUT(h.window.recording(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(h.window.figures()->stats().okTicks >= 100, 60000);
        QVERIFY(h.window.markAction()->isEnabled());
        h.window.markAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(h.window.figures()->stats().okTicks >= 300, 60000);
        h.window.prompts().askMarkText = [] { return QStringLiteral("checkout ends"); };
        h.window.markAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(h.window.figures()->stats().okTicks >= 500, 60000);
        QVERIFY(gilscope::test::clickAction(&h.window, h.window.stopAction()));
        QTRY_VERIFY_WITH_TIMEOUT(!h.window.recording(), 30000);
        TimelineWidget* w = h.window.timeline();
        QTRY_COMPARE_WITH_TIMEOUT(w->snapshot().marks.size(), size_t(2), 10000);
        const TimelineMark mark = w->snapshot().marks.front();
        const TimelineMark next = w->snapshot().marks.back();
        QVERIFY(next.timeUs > mark.timeUs);
        QCOMPARE(mark.text, std::string("checkout starts"));
        QVERIFY(mark.timeUs > w->snapshot().originUs);
        const uint64_t first = w->snapshot().threads.front().threadId;
        const QString tip =
            w->toolTipAt(QPoint(w->xAt(mark.timeUs), w->trackRect(first).center().y()));
        QVERIFY2(tip.startsWith(QStringLiteral("Mark “checkout starts” at ")), qPrintable(tip));
        QVERIFY(!h.window.markAction()->isEnabled());
        // A click on the first mark's flag filters every view to the range up to the next.
        const QRect flag = w->markFlagRect(mark);
        QVERIFY(!flag.isEmpty());
        QTest::mouseClick(w, Qt::LeftButton, {}, flag.center());
        AnalysisController* c = h.window.analysis()->controller();
        QTRY_VERIFY_WITH_TIMEOUT(c->latest() && c->latest()->snapshot &&
                                     c->latest()->snapshot->filter.startUs == mark.timeUs &&
                                     c->latest()->snapshot->filter.endUs == next.timeUs,
                                 30000);
    }

    void filteredExportOfAnOpenedFile() {
        GILSCOPE_REQUIRE_SHARED();
        Harness h;
        h.openPath = gilscope::test::fixturePath(QStringLiteral("tach/real-315.bin"));
        QSignalSpy loaded(&h.window, &MainWindow::recordingLoaded);
        QVERIFY(gilscope::test::clickAction(&h.window, h.window.openAction()));
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(loaded.at(0).at(0).toBool());
        const AnalysisResultPtr everything = chooseState(h.window, StateFilter::All);
        QVERIFY(everything);
        // A state that keeps some samples of the file but not all.
        QTemporaryDir dir;
        int exported = 0;
        for (StateFilter state : {StateFilter::HoldingGil, StateFilter::OnCpu,
                                  StateFilter::WaitingForGil, StateFilter::GilContention}) {
            const AnalysisResultPtr r = chooseState(h.window, state);
            QVERIFY(r);
            const uint64_t matched = r->snapshot->matchedSamples;
            if (matched == 0 || matched == everything->snapshot->matchedSamples) continue;
            std::map<qint64, qint64> perThread;
            exportFiltered(h, state,
                           dir.filePath(QString::fromUtf8(stateFilterName(state).data()) +
                                        QStringLiteral(".json")),
                           &perThread);
            if (QTest::currentTestFailed()) return;
            qInfo("real-315.bin, %s: %llu of %llu thread-samples exported",
                  stateFilterLabel(state).data(), static_cast<unsigned long long>(matched),
                  static_cast<unsigned long long>(everything->snapshot->matchedSamples));
            ++exported;
        }
        QVERIFY2(exported > 0, "no state of real-315.bin keeps part of its samples");
        // The info grid: per thread and in total, side by side.
        auto* info = h.window.findChild<QLabel*>(QStringLiteral("fileInfo"));
        QVERIFY(info);
        QVERIFY2(info->text().contains(QStringLiteral("Samples per thread")) &&
                     info->text().contains(QStringLiteral("Thread-samples, total")) &&
                     info->text().contains(QStringLiteral("23,060")),
                 qPrintable(info->text()));
    }
};

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
