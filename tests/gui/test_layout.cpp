// The window as a new user meets it, against a real 9-thread target (eight_threads.py:
// four spinners, four sleepers, the main thread) on every interpreter present: the start
// page lists the processes; typing the pid in the filter, Tab and Return records it; the
// recording page replaces the start page, and at the first size of a 1366x768 and of a
// 1600x1000 screen at least four thread tracks of 20-24 px and the top-functions table
// are on screen without scrolling. Clicking a track's name filters the top functions
// to that thread ("1 of 9 threads"), Ctrl+click adds one, back and "Whole recording"
// undo it. Return in the filter records too. And the layout is remembered between runs,
// and View › Reset layout restores it.
#include "tests/gui/gui_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/status_line.h"
#include "ui/analysis/top_functions_model.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/process_table_model.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <set>

using namespace gilscope::ui;
using gilscope::test::Interpreter;
using gilscope::test::TargetProcess;

namespace {

// The window with its dialogs answered (none is expected here).
struct Window {
    MainWindow window;
    QStringList messages;
    explicit Window(QSettings* settings = nullptr) : window(settings) {
        window.prompts().showMessage = [this](MainWindow::MessageKind, const QString& t,
                                              const QString& m) {
            messages << t + QStringLiteral(": ") + m;
        };
        window.prompts().askUnsaved = [](const QString&, bool) {
            return MainWindow::UnsavedChoice::Discard;
        };
    }
};

// Names in the top-functions table, as shown (the search box is empty).
std::set<QString> topNames(AnalysisPanel* panel) {
    std::set<QString> names;
    QSortFilterProxyModel* proxy = panel->topProxy();
    for (int r = 0; r < proxy->rowCount(); ++r)
        names.insert(proxy->index(r, TopFunctionsModel::Name).data().toString());
    return names;
}

// Tracks whose whole strip is inside the track area's viewport: seen without scrolling.
int tracksInView(MainWindow& w, int* height) {
    TimelineWidget* timeline = w.timeline();
    QWidget* viewport = w.tracksArea()->viewport();
    int n = 0;
    for (uint64_t tid : timeline->shownThreads()) {
        const QRect r = timeline->trackRect(tid);
        const QRect inViewport(timeline->mapTo(viewport, r.topLeft()), r.size());
        if (!viewport->rect().contains(inViewport)) continue;
        *height = r.height();
        ++n;
    }
    return n;
}

// Drags a splitter's handle by dy pixels, as a user does.
void dragHandle(QSplitter* splitter, int index, int dy) {
    QSplitterHandle* handle = splitter->handle(index);
    const QPoint from = handle->rect().center();
    QTest::mousePress(handle, Qt::LeftButton, {}, from);
    QTest::mouseMove(handle, from + QPoint(0, dy)); // the handle follows: one move
    QTest::mouseRelease(handle, Qt::LeftButton, {}, from);
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void tracksFirstAndTrackSelection_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters());
    }
    void tracksFirstAndTrackSelection() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, QStringLiteral("eight_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject ids = target.readyInfo().value(QStringLiteral("threads")).toObject();
        auto tid = [&](const char* name) {
            return uint64_t(ids.value(QLatin1String(name)).toInteger());
        };
        QCOMPARE(ids.size(), 9);

        Window h;
        MainWindow& w = h.window;
        w.resize(MainWindow::defaultSize(QSize(1366, 768)));
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        // The start page: the process table, no tracks.
        QVERIFY(!w.showingRecording());
        QVERIFY(w.picker()->isVisible());
        QVERIFY(!w.tracksArea()->isVisible());
        QVERIFY(!w.pageAction()->isVisible()); // nothing to go back to yet

        // Keyboard only: the pid in the filter, Tab into the table, Return records.
        const QString pid = QString::number(target.pid());
        QVERIFY(QTest::qWaitFor(
            [&] {
                w.picker()->refreshNow();
                return w.picker()->model()->rowOfPid(int(target.pid())) >= 0;
            },
            20000));
        QLineEdit* filter = w.picker()->filter();
        filter->setFocus();
        QTest::keyClicks(filter, pid);
        QTest::keyClick(filter, Qt::Key_Tab);
        QVERIFY(w.picker()->view()->hasFocus());
        QCOMPARE(w.picker()->selectedPid(), int(target.pid()));
        QSignalSpy started(&w, &MainWindow::recordingStarted);
        QTest::keyClick(w.picker()->view(), Qt::Key_Return);
        QVERIFY2(started.wait(30000) || started.count() == 1, qPrintable(h.messages.join('\n')));

        // The recording page: the process table is gone, the toolbar names the process.
        QVERIFY(w.showingRecording());
        QVERIFY(!w.picker()->isVisible());
        QVERIFY(w.tracksArea()->isVisible());
        QVERIFY(w.analysis()->topView()->isVisible());
        QVERIFY(w.findChild<QLabel*>(QStringLiteral("processName"))->text().contains(pid));
        QVERIFY(w.pageAction()->isEnabled());

        // Every thread has its track, and the views have rows.
        TimelineWidget* timeline = w.timeline();
        QVERIFY(QTest::qWaitFor(
            [&] {
                return timeline->shownThreads().size() == 9 &&
                       w.analysis()->topProxy()->rowCount() > 0 &&
                       topNames(w.analysis()).count(QStringLiteral("sleeper")) &&
                       topNames(w.analysis()).count(QStringLiteral("spinner"));
            },
            60000));

        // At the first size on both screens: >= 4 tracks of 20-24 px and the table's
        // rows on screen, without scrolling or dragging.
        for (const QSize screen : {QSize(1366, 768), QSize(1600, 1000)}) {
            w.resize(MainWindow::defaultSize(screen));
            int height = 0, shown = 0;
            QVERIFY(QTest::qWaitFor(
                [&] {
                    shown = tracksInView(w, &height);
                    return shown >= 4 && w.tracksArea()->verticalScrollBar()->value() == 0;
                },
                10000));
            QTableView* table = w.analysis()->topView();
            const int rowsVisible =
                table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
            qInfo("%s at the first size of %dx%d (%dx%d): %d tracks of %d px in view, the "
                  "track area %d px, top functions shows %d rows",
                  qPrintable(interpreter.label), screen.width(), screen.height(), w.width(),
                  w.height(), shown, height, w.tracksArea()->height(), rowsVisible);
            QVERIFY(height >= 20 && height <= 24);
            QVERIFY2(rowsVisible >= 4, qPrintable(QString::number(rowsVisible)));
            QVERIFY(w.height() <= screen.height());
        }

        // A click on spinner-0's name: every view counts that thread alone.
        AnalysisPanel* panel = w.analysis();
        const uint64_t spinner = tid("spinner-0"), sleeper = tid("sleeper-0");
        QTest::mouseClick(timeline, Qt::LeftButton, {}, timeline->nameRect(spinner).center());
        QCOMPARE(timeline->selectedThreads(), std::vector<uint64_t>{spinner});
        auto shows = [&](std::vector<uint64_t> threads, const QString& header) {
            return QTest::qWaitFor(
                [&] {
                    const auto r = panel->controller()->latest();
                    return r && r->snapshot && r->snapshot->filter.threads == threads &&
                           panel->summary()->text().startsWith(header);
                },
                30000);
        };
        QVERIFY2(shows({spinner}, QStringLiteral("1 of 9 threads")),
                 qPrintable(panel->summary()->text()));
        std::set<QString> names = topNames(panel);
        QVERIFY(names.count(QStringLiteral("spinner")));
        QVERIFY(!names.count(QStringLiteral("sleeper")));
        // Ctrl+click adds sleeper-0.
        QTest::mouseClick(timeline, Qt::LeftButton, Qt::ControlModifier,
                          timeline->nameRect(sleeper).center());
        std::vector<uint64_t> both{spinner, sleeper};
        std::sort(both.begin(), both.end());
        QVERIFY2(shows(both, QStringLiteral("2 of 9 threads")),
                 qPrintable(panel->summary()->text()));
        names = topNames(panel);
        QVERIFY(names.count(QStringLiteral("spinner")) && names.count(QStringLiteral("sleeper")));
        // Back: spinner-0 alone again, on the tracks too.
        QTest::mouseClick(panel->backButton(), Qt::LeftButton);
        QVERIFY(shows({spinner}, QStringLiteral("1 of 9 threads")));
        QCOMPARE(timeline->selectedThreads(), std::vector<uint64_t>{spinner});
        // "Whole recording": every thread, nothing selected.
        QTest::mouseClick(panel->findChild<QToolButton*>(QStringLiteral("filterReset")),
                          Qt::LeftButton);
        QVERIFY(shows({}, QStringLiteral("all 9 threads")));
        QVERIFY(timeline->selectedThreads().empty());
        QVERIFY(topNames(panel).count(QStringLiteral("sleeper")));

        // The process button goes back to the picker while the recording goes on.
        QVERIFY(gilscope::test::clickAction(&w, w.pageAction()));
        QVERIFY(!w.showingRecording());
        QVERIFY(w.picker()->isVisible());
        QVERIFY(w.recording());
        QVERIFY(gilscope::test::clickAction(&w, w.pageAction()));
        QVERIFY(w.showingRecording());
        w.stop();
        QVERIFY(h.messages.isEmpty());
    }

    // Return in the filter records the first (here the only) matching process.
    void returnInTheFilterRecords() {
        const QList<Interpreter> all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        qInfo("tested: %s", qPrintable(all.last().label));
        TargetProcess target(all.last(), QStringLiteral("eight_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        Window h;
        MainWindow& w = h.window;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(QTest::qWaitFor(
            [&] {
                w.picker()->refreshNow();
                return w.picker()->model()->rowOfPid(int(target.pid())) >= 0;
            },
            20000));
        QVERIFY(w.picker()->selectedPid() == 0);
        QTest::keyClicks(w.picker()->filter(), QString::number(target.pid()));
        QSignalSpy started(&w, &MainWindow::recordingStarted);
        QTest::keyClick(w.picker()->filter(), Qt::Key_Return);
        QCOMPARE(w.picker()->selectedPid(), int(target.pid()));
        QVERIFY2(started.wait(30000) || started.count() == 1, qPrintable(h.messages.join('\n')));
        QVERIFY(w.showingRecording());
        w.stop();
    }

    // A dragged track area and an expanded rate chart come back next time; Reset layout
    // restores the first size and the fitted track area.
    void layoutRememberedAndReset() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("gilscope.conf")), QSettings::IniFormat);
        QList<int> dragged;
        {
            Window h(&settings);
            h.window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&h.window));
            h.window.showRecordingView();
            QSplitter* splitter = h.window.splitter();
            QVERIFY(QTest::qWaitFor([&] { return splitter->sizes().value(0) > 0; }, 5000));
            const int before = splitter->sizes().value(0);
            dragHandle(splitter, 1, 60);
            dragged = splitter->sizes();
            QVERIFY2(dragged.value(0) > before, qPrintable(QString::number(dragged.value(0))));
            h.window.rateToggle()->click(); // shown while recording; the setting is the same
            h.window.close();               // saves
        }
        Window h(&settings);
        h.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&h.window));
        h.window.showRecordingView();
        QSplitter* splitter = h.window.splitter();
        QTRY_COMPARE(splitter->sizes().value(0), dragged.value(0));
        QVERIFY(h.window.rateToggle()->isChecked());
        h.window.resetLayoutAction()->trigger();
        QVERIFY(!h.window.rateToggle()->isChecked());
        QVERIFY(!settings.contains(QStringLiteral("window/splitter")));
        // Fitted again: the empty timeline needs less than the dragged height.
        QTRY_VERIFY(splitter->sizes().value(0) < dragged.value(0));
        h.window.close();
        QVERIFY(!settings.contains(QStringLiteral("window/splitter")));
    }
};

QTEST_MAIN(TestLayout)
#include "test_layout.moc"
