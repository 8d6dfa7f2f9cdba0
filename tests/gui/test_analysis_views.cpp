// The analysis views: item models under QAbstractItemModelTester; the panel driven like
// a user does (state filter, drag a range on the timeline, back/forward, click a flame
// graph frame, search, source heat); and the top-functions view while recording a real
// process on every host interpreter.
#include "core/analysis/profile_model.h"
#include "core/sample/sample_label.h"
#include "core/sample/tee_sink.h"
#include "core/sample/thread_status.h"
#include "core/session/live_timeline.h"
#include "core/session/recording_session.h"
#include "tests/support/ci_requirements.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/synthetic_feed.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/call_tree_model.h"
#include "ui/analysis/callers_callees_view.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/label_filter_box.h"
#include "ui/analysis/source_view.h"
#include "ui/analysis/stack_chart_view.h"
#include "ui/analysis/stack_chart_widget.h"
#include "ui/analysis/status_line.h"
#include "ui/analysis/top_functions_model.h"
#include "ui/analysis/transform_bar.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/timeline_widget.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeView>
#include <functional>

using namespace gilscope;
using namespace gilscope::ui;
using gilscope::test::SyntheticFeed;
namespace TS = gilscope::ThreadStatus;

namespace {

constexpr uint64_t kT0 = 10'000'000; // first sample's time, µs

// Two seconds at 1 kHz on two threads: thread 1 runs main -> early_work for the first
// second and main -> late_work -> helper for the next (on CPU); thread 2 sleeps in idle.
struct FakeRecording {
    std::shared_ptr<ProfileModel> model = std::make_shared<ProfileModel>();
    LiveTimeline timeline;
    TeeSink tee;
    std::unique_ptr<SyntheticFeed> feed;
    // Its functions' lines are 1-12, plus lineBase.
    explicit FakeRecording(const QString& sourceFile = QStringLiteral("/nonexistent/app.py"),
                           int lineBase = 0) {
        tee.add(model.get());
        tee.add(&timeline);
        feed = std::make_unique<SyntheticFeed>(tee);
        const std::string file = sourceFile.toStdString();
        const FrameId main = feed->frame(file, lineBase + 1, "main"),
                      early = feed->frame(file, lineBase + 4, "early_work"),
                      late = feed->frame(file, lineBase + 7, "late_work"),
                      helper = feed->frame(file, lineBase + 9, "helper"),
                      idle = feed->frame(file, lineBase + 12, "idle");
        for (uint64_t i = 0; i < 2000; ++i) {
            const uint64_t t = kT0 + i * 1000;
            if (i < 1000)
                feed->add(1, TS::HasGil | TS::OnCpu, {early, main}, {t});
            else if (i % 4 == 0)
                feed->add(1, TS::HasGil | TS::OnCpu, {late, main}, {t});
            else
                feed->add(1, TS::HasGil | TS::OnCpu, {helper, late, main}, {t});
            feed->add(2, 0, {idle}, {t});
        }
        tee.finish({});
    }
};

// Total samples of a function as the top-functions view shows it (0 when absent).
qulonglong topTotal(AnalysisPanel& panel, const QString& name) {
    auto* m = panel.topModel();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, TopFunctionsModel::Name).data().toString() == name)
            return m->index(r, TopFunctionsModel::Total).data().toULongLong();
    return 0;
}

// Triggers one action of the right-click menu of a frame.
void triggerMenu(AnalysisPanel& panel, const FrameTarget& target, const char* action) {
    std::unique_ptr<QMenu> menu(panel.frameMenu(target));
    auto* a = menu->findChild<QAction*>(QString::fromLatin1(action));
    QVERIFY2(a, action);
    a->trigger();
}

// A source file of `count` lines, line i being `pattern` with %1 as i.
bool writeNumberedLines(const QString& path, const QString& pattern, int count) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return false;
    for (int i = 1; i <= count; ++i)
        f.write((pattern.arg(i) + QLatin1Char('\n')).toUtf8());
    return true;
}

// Selects `name`'s row in the top functions table, as a click would.
void selectTopRow(AnalysisPanel& panel, const QString& name) {
    QTableView* view = panel.topView();
    for (int r = 0; r < view->model()->rowCount(); ++r)
        if (view->model()->index(r, 0).data().toString() == name)
            view->setCurrentIndex(view->model()->index(r, 0));
}

bool waitForResult(AnalysisPanel& panel) {
    QSignalSpy spy(&panel, &AnalysisPanel::resultShown);
    return spy.wait(20000);
}

AnalysisResultPtr computeResult(const ProfileModel& model, ProfileFilter filter = {}) {
    auto r = std::make_shared<AnalysisResult>();
    r->snapshot = model.query(filter).value();
    r->functions = functionTable(*r->snapshot);
    r->topDown = topDownTree(*r->snapshot);
    r->bottomUp = bottomUpTree(*r->snapshot);
    return r;
}

} // namespace

class TestAnalysisViews : public QObject {
    Q_OBJECT
private slots:
    void modelsPassTheModelTester() {
        FakeRecording rec;
        TopFunctionsModel top;
        QSortFilterProxyModel topProxy;
        topProxy.setSourceModel(&top);
        CallTreeModel down(CallTreeModel::Kind::TopDown), up(CallTreeModel::Kind::BottomUp);
        QSortFilterProxyModel downProxy, upProxy;
        downProxy.setSourceModel(&down);
        upProxy.setSourceModel(&up);
        downProxy.setRecursiveFilteringEnabled(true);
        const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
        QAbstractItemModelTester t1(&top, mode), t2(&topProxy, mode), t3(&down, mode),
            t4(&downProxy, mode), t5(&up, mode), t6(&upProxy, mode);
        for (int round = 0; round < 2; ++round) {
            ProfileFilter f;
            f.state = round ? StateFilter::OnCpu : StateFilter::All;
            const auto result = computeResult(*rec.model, f);
            top.setResult(result);
            down.setResult(result);
            up.setResult(result);
            QCOMPARE(top.rowCount(), round ? 4 : 5); // idle is not on CPU
            downProxy.sort(CallTreeModel::Total, Qt::DescendingOrder);
            downProxy.setFilterFixedString(QStringLiteral("helper"));
            // main -> late_work -> helper survives the filter through its ancestors.
            QCOMPARE(downProxy.rowCount(), 1);
            const QModelIndex mainIdx = downProxy.index(0, 0);
            QCOMPARE(mainIdx.data().toString(), QStringLiteral("main"));
            QCOMPARE(downProxy.rowCount(mainIdx), 1);
            downProxy.setFilterFixedString({});
            QCOMPARE(up.rowCount(), round ? 3 : 4); // leaves: early_work, helper, late_work (+idle)
        }
        top.setResult(nullptr);
        down.setResult(nullptr);
        QCOMPARE(top.rowCount(), 0);
        QCOMPARE(down.rowCount(), 0);
    }

    // A live update (the same recording, more samples) changes the models in place:
    // rows keep their place and persistent indexes (what a view expanded or selected)
    // stay, figures grow, new functions and call paths are inserted; another recording
    // or a filter that drops a row starts the models over.
    void liveUpdatesChangeTheModelsInPlace() {
        auto model = std::make_shared<ProfileModel>();
        SyntheticFeed feed(*model);
        const FrameId main = feed.frame("app.py", 1, "main"),
                      work = feed.frame("app.py", 4, "work"),
                      other = feed.frame("app.py", 9, "other"),
                      idle = feed.frame("app.py", 12, "idle");
        uint64_t t = kT0;
        auto add = [&](std::vector<FrameId> stack, int n, uint32_t status) {
            for (int i = 0; i < n; ++i)
                feed.add(1, status, stack, {t += 1000});
        };
        auto resultOf = [&](uint64_t serial, ProfileFilter filter = {}) {
            auto r = std::make_shared<AnalysisResult>();
            r->snapshot = model->query(filter).value();
            r->functions = functionTable(*r->snapshot);
            r->topDown = topDownTree(*r->snapshot);
            r->bottomUp = bottomUpTree(*r->snapshot);
            r->modelSerial = serial;
            return AnalysisResultPtr(r);
        };
        TopFunctionsModel top;
        CallTreeModel down(CallTreeModel::Kind::TopDown), up(CallTreeModel::Kind::BottomUp);
        QSortFilterProxyModel topProxy, downProxy, upProxy;
        topProxy.setSourceModel(&top);
        downProxy.setSourceModel(&down);
        upProxy.setSourceModel(&up);
        for (QSortFilterProxyModel* p : {&topProxy, &downProxy, &upProxy}) {
            p->setRecursiveFilteringEnabled(true);
            p->setSortRole(SortRole);
            p->sort(1, Qt::DescendingOrder);
        }
        const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
        QAbstractItemModelTester t1(&top, mode), t2(&topProxy, mode), t3(&down, mode),
            t4(&downProxy, mode), t5(&up, mode), t6(&upProxy, mode);

        add({work, main}, 100, TS::HasGil | TS::OnCpu);
        add({idle}, 10, 0);
        QVERIFY(!top.setResult(resultOf(1))); // the first result
        QVERIFY(!down.setResult(resultOf(1)));
        QVERIFY(!up.setResult(resultOf(1)));
        QPersistentModelIndex workRow;
        for (int r = 0; r < top.rowCount(); ++r)
            if (top.index(r, 0).data().toString() == QLatin1String("work"))
                workRow = top.index(r, 0);
        QVERIFY(workRow.isValid());
        const QPersistentModelIndex mainNode = downProxy.index(0, 0);
        QCOMPARE(mainNode.data().toString(), QStringLiteral("main"));
        const QPersistentModelIndex workNode = downProxy.index(0, 0, mainNode);
        QCOMPARE(workNode.data().toString(), QStringLiteral("work"));
        QCOMPARE(downProxy.rowCount(workNode), 0);

        add({work, main}, 50, TS::HasGil | TS::OnCpu);
        add({other, work, main}, 30, TS::HasGil | TS::OnCpu); // a new function and path
        QVERIFY(top.setResult(resultOf(1)));
        QVERIFY(down.setResult(resultOf(1)));
        QVERIFY(up.setResult(resultOf(1)));
        QVERIFY(workRow.isValid());
        QCOMPARE(workRow.data().toString(), QStringLiteral("work"));
        QCOMPARE(
            QModelIndex(workRow).siblingAtColumn(TopFunctionsModel::Total).data().toULongLong(),
            180ull);
        QCOMPARE(top.rowCount(), 4);
        QVERIFY(workNode.isValid());
        QCOMPARE(workNode.data().toString(), QStringLiteral("work"));
        QCOMPARE(QModelIndex(workNode).siblingAtColumn(CallTreeModel::Total).data().toULongLong(),
                 180ull);
        QCOMPARE(downProxy.rowCount(workNode), 1);
        QCOMPARE(downProxy.index(0, 0, workNode).data().toString(), QStringLiteral("other"));
        QCOMPARE(up.rowCount(), 3); // leaves: work, idle, other

        // On CPU only: idle goes, so its row does: the models start over.
        ProfileFilter onCpu;
        onCpu.state = StateFilter::OnCpu;
        QVERIFY(!top.setResult(resultOf(1, onCpu)));
        QVERIFY(!workRow.isValid());
        QCOMPARE(top.rowCount(), 3); // main, work, other
        // Another recording: function ids mean other functions.
        QVERIFY(!down.setResult(resultOf(2)));
        QVERIFY(!workNode.isValid());
        QVERIFY(!up.setResult(resultOf(2)));
    }

    // Item 14: a query job that ended in an error (a query that threw arrives as one)
    // reaches the views as a result carrying it, for that request. Before, the slot
    // called value() on the error: a bad_variant_access out of a Qt slot.
    void failedQueryIsAResult() {
        const AnalysisResultPtr failed =
            AnalysisController::resultOf(makeError(ErrorKind::Internal, "std::bad_alloc"), 7, 3);
        QVERIFY(failed);
        QCOMPARE(failed->generation, uint64_t{7});
        QCOMPARE(failed->modelSerial, uint64_t{3});
        QCOMPARE(failed->error, QStringLiteral("std::bad_alloc"));
        QVERIFY(!failed->snapshot);
        FakeRecording rec;
        const AnalysisResultPtr good = computeResult(*rec.model);
        QCOMPARE(AnalysisController::resultOf(good, 9, 0), good); // a result passes as it is
        // The panel shows the error instead of a result.
        AnalysisPanel panel;
        panel.show();
        panel.controller()->publish(failed);
        QTRY_VERIFY2(panel.summary()->text().contains(QStringLiteral("std::bad_alloc")),
                     qPrintable(panel.summary()->text()));
    }

    void panelFiltersByStateRangeAndBackForward() {
        FakeRecording rec;
        TimelineWidget timeline;
        timeline.resize(1000, 300);
        timeline.setSnapshot(rec.timeline.snapshot());
        AnalysisPanel panel;
        panel.attachTimeline(&timeline);
        panel.resize(1200, 600);
        panel.show();
        timeline.show();
        panel.showRecording(rec.model, nullptr, false);
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "early_work"), 1000ull);
        QCOMPARE(topTotal(panel, "late_work"), 1000ull);
        QCOMPARE(topTotal(panel, "idle"), 2000ull);
        QVERIFY(!panel.backButton()->isEnabled());

        // The state filter: On CPU drops the sleeping thread.
        panel.stateBox()->setCurrentIndex(panel.stateBox()->findData(int(StateFilter::OnCpu)));
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "idle"), 0ull);
        QCOMPARE(topTotal(panel, "early_work"), 1000ull);

        // Drag over the second half of the timeline: early_work leaves every view.
        const int x0 = timeline.xAt(kT0 + 1'200'000), x1 = timeline.xAt(kT0 + 1'800'000);
        const int y = timeline.height() / 2;
        QTest::mousePress(&timeline, Qt::LeftButton, {}, QPoint(x0, y));
        QTest::mouseMove(&timeline, QPoint((x0 + x1) / 2, y));
        QTest::mouseMove(&timeline, QPoint(x1, y));
        QTest::mouseRelease(&timeline, Qt::LeftButton, {}, QPoint(x1, y));
        QVERIFY(waitForResult(panel));
        QVERIFY(panel.controller()->filter().hasRange);
        QCOMPARE(topTotal(panel, "early_work"), 0ull);
        const qulonglong inRange = topTotal(panel, "late_work");
        // ~600 ms of 1 kHz samples, within the pixel rounding of the drag.
        QVERIFY2(inRange > 500 && inRange < 700, qPrintable(QString::number(inRange)));
        QCOMPARE(panel.flameGraph()->frameRect(QStringLiteral("early_work")), QRect());
        QVERIFY(panel.backButton()->isEnabled());

        // Back restores the whole recording, forward the range again.
        QTest::mouseClick(panel.backButton(), Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "early_work"), 1000ull);
        QVERIFY(panel.forwardButton()->isEnabled());
        QTest::mouseClick(panel.forwardButton(), Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "early_work"), 0ull);
        QCOMPARE(topTotal(panel, "late_work"), inRange);
    }

    // --label-from's labels: the Label choice lists the recording's values (not its span
    // ids), and choosing one makes every view count only that route's samples, as a
    // transform the breadcrumb shows; removing the crumb or choosing "All samples" undoes it.
    void labelFilterCountsOneRoute() {
        auto model = std::make_shared<ProfileModel>();
        SyntheticFeed feed(*model);
        const FrameId main = feed.frame("/srv/app.py", 1, "main"),
                      checkout = feed.frame("/srv/app.py", 5, "checkout"),
                      search = feed.frame("/srv/app.py", 9, "search"),
                      toCheckout = feed.frame("~", 0, labelFrameName("route", "/checkout")),
                      toSearch = feed.frame("~", 0, labelFrameName("route", "/search"));
        for (uint64_t i = 0; i < 1000; ++i) {
            const FrameId span = feed.frame("~", 0, labelFrameName("span_id", std::to_string(i)));
            if (i % 4 == 0)
                feed.add(1, TS::HasGil | TS::OnCpu, {checkout, main, toCheckout, span},
                         {kT0 + i * 1000});
            else
                feed.add(1, TS::HasGil | TS::OnCpu, {search, main, toSearch, span},
                         {kT0 + i * 1000});
        }
        model->finish({});
        AnalysisPanel panel;
        panel.resize(1200, 600);
        panel.show();
        panel.showRecording(model, nullptr, false);
        QVERIFY(waitForResult(panel));
        QComboBox* box = panel.labelFilter()->box();
        QVERIFY(panel.labelFilter()->isVisible());
        QCOMPARE(box->count(), 3); // All samples, route=/checkout, route=/search
        QCOMPARE(box->itemText(1), QString("route=/checkout"));
        QCOMPARE(topTotal(panel, "checkout"), 250ull);
        QCOMPARE(topTotal(panel, "search"), 750ull);

        box->setCurrentIndex(box->findText("route=/search"));
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "search"), 750ull);
        QCOMPARE(topTotal(panel, "checkout"), 0ull);
        QCOMPARE(topTotal(panel, "main"), 750ull);
        QCOMPARE(panel.transformBar()->labels(), QStringList{"Label: route=/search"});
        // Another value replaces it: one label filter at a time.
        box->setCurrentIndex(box->findText("route=/checkout"));
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "checkout"), 250ull);
        QCOMPARE(topTotal(panel, "search"), 0ull);
        QCOMPARE(panel.transformBar()->labels(), QStringList{"Label: route=/checkout"});
        // Back: the choice follows the filter it returns to.
        QTest::mouseClick(panel.backButton(), Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QCOMPARE(box->currentText(), QString("route=/search"));
        box->setCurrentIndex(0);
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "checkout"), 250ull);
        QVERIFY(panel.transformBar()->labels().isEmpty());
    }

    // Right-click a frame in the flame graph, merge it: every view loses it, its time goes
    // to its caller, the breadcrumb says so; it survives a state change, back undoes it,
    // and transforms from the tables, invert and the crumbs' remove work the same way.
    void transformsFromARightClickReshapeEveryView() {
        FakeRecording rec;
        AnalysisPanel panel;
        panel.resize(1200, 700);
        panel.show();
        panel.showRecording(rec.model, nullptr, false);
        QVERIFY(waitForResult(panel));
        QVERIFY(!panel.transformBar()->isVisible());
        panel.tabs()->setCurrentIndex(1); // Flame graph
        FlameGraphWidget* flame = panel.flameGraph();
        QTRY_VERIFY(flame->isVisible() && !flame->frameRect(QStringLiteral("late_work")).isEmpty());
        const FrameTarget late =
            panel.targetAt(flame, flame->frameRect(QStringLiteral("late_work")).center());
        QCOMPARE(late.function.name, std::string("late_work"));
        QCOMPARE(late.path.size(), size_t(2));
        QCOMPARE(late.path[0].name, std::string("main"));
        triggerMenu(panel, late, "transformMerge");
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "late_work"), 0ull);
        QCOMPARE(topTotal(panel, "helper"), 750ull);
        QCOMPARE(topTotal(panel, "main"), 2000ull);
        QCOMPARE(flame->frameRect(QStringLiteral("late_work")), QRect());
        QVERIFY(!flame->frameRect(QStringLiteral("helper")).isEmpty());
        QVERIFY(panel.transformBar()->isVisible());
        QCOMPARE(panel.transformBar()->labels(), QStringList{QStringLiteral("Merge: late_work")});
        // The call tree: main calls helper directly now.
        CallTreeModel* tree = panel.treeModel();
        QStringList underMain;
        for (int r = 0; r < tree->rowCount(); ++r)
            if (tree->index(r, 0).data().toString() == QStringLiteral("main"))
                for (int c = 0; c < tree->rowCount(tree->index(r, 0)); ++c)
                    underMain << tree->index(c, 0, tree->index(r, 0)).data().toString();
        QCOMPARE(underMain, (QStringList{QStringLiteral("early_work"), QStringLiteral("helper")}));
        // The stack chart too: no column draws late_work, helper still shows.
        StackChartView* chartView = panel.stackChart();
        panel.tabs()->setCurrentWidget(chartView);
        const auto chartNames = [&] {
            QStringList names;
            if (const StackChart* c = chartView->chart()->chart())
                for (const StackChartLane& lane : c->lanes)
                    for (const auto& row : lane.depths)
                        for (const StackChartBox& b : row)
                            names << QString::fromStdString(
                                c->functions[c->nodes[b.node].func].name);
            return names;
        };
        QTRY_VERIFY(chartNames().contains(QStringLiteral("helper")));
        QVERIFY(!chartNames().contains(QStringLiteral("late_work")));
        panel.tabs()->setCurrentIndex(1);

        // A state change keeps the transform.
        panel.stateBox()->setCurrentIndex(panel.stateBox()->findData(int(StateFilter::OnCpu)));
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "late_work"), 0ull);
        QCOMPARE(topTotal(panel, "helper"), 750ull);
        QCOMPARE(panel.transformBar()->labels().size(), 1);
        // Back undoes it exactly; forward brings it back.
        QTest::mouseClick(panel.backButton(), Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "late_work"), 1000ull);
        QVERIFY(!panel.transformBar()->isVisible());
        QTest::mouseClick(panel.forwardButton(), Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "late_work"), 0ull);

        // From the top-functions table: drop the samples with helper.
        panel.stateBox()->setCurrentIndex(panel.stateBox()->findData(int(StateFilter::All)));
        QVERIFY(waitForResult(panel));
        panel.tabs()->setCurrentIndex(0);
        QTableView* top = panel.topView();
        int helperRow = -1;
        for (int r = 0; r < panel.topProxy()->rowCount(); ++r)
            if (panel.topProxy()->index(r, 0).data().toString() == QStringLiteral("helper"))
                helperRow = r;
        QVERIFY(helperRow >= 0);
        const QPoint at = top->visualRect(panel.topProxy()->index(helperRow, 0)).center();
        const FrameTarget helper = panel.targetAt(top->viewport(), at);
        QCOMPARE(helper.function.name, std::string("helper"));
        QVERIFY(helper.path.empty());
        triggerMenu(panel, helper, "transformDrop");
        QVERIFY(waitForResult(panel));
        QCOMPARE(topTotal(panel, "helper"), 0ull);
        QCOMPARE(topTotal(panel, "main"), 1250ull);
        QCOMPARE(panel.transformBar()->labels(),
                 (QStringList{QStringLiteral("Merge: late_work"), QStringLiteral("Drop: helper")}));

        // Invert: the call tree's top rows are the leaves.
        triggerMenu(panel, helper, "transformInvert");
        QVERIFY(waitForResult(panel));
        QVERIFY(panel.controller()->inverted());
        QStringList roots;
        for (int r = 0; r < panel.treeModel()->rowCount(); ++r)
            roots << panel.treeModel()->index(r, 0).data().toString();
        roots.sort();
        QCOMPARE(roots, (QStringList{QStringLiteral("early_work"), QStringLiteral("idle"),
                                     QStringLiteral("main")}));

        // A crumb's remove takes out that transform only: helper is back.
        auto crumbs =
            panel.transformBar()->findChildren<QToolButton*>(QStringLiteral("transformCrumb"));
        QCOMPARE(crumbs.size(), 3);
        QTest::mouseClick(crumbs[1], Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QCOMPARE(panel.transformBar()->labels(),
                 (QStringList{QStringLiteral("Merge: late_work"), QStringLiteral("Invert")}));
        QCOMPARE(topTotal(panel, "helper"), 750ull);
        auto* clear =
            panel.transformBar()->findChild<QToolButton*>(QStringLiteral("transformClear"));
        QTest::mouseClick(clear, Qt::LeftButton);
        QVERIFY(waitForResult(panel));
        QVERIFY(!panel.transformBar()->isVisible());
        QCOMPARE(topTotal(panel, "late_work"), 1000ull);
    }

    void flameGraphClickZoomsAndSearchHighlights() {
        FakeRecording rec;
        AnalysisPanel panel;
        panel.resize(1200, 700);
        panel.show();
        panel.showRecording(rec.model, nullptr, false);
        QVERIFY(waitForResult(panel));
        panel.tabs()->setCurrentIndex(1); // Flame graph
        FlameGraphWidget* flame = panel.flameGraph();
        QTRY_VERIFY(flame->isVisible() && !flame->frameRect(QStringLiteral("late_work")).isEmpty());
        const QRect late = flame->frameRect(QStringLiteral("late_work"));
        // late_work is a quarter of the samples (1000 of 4000): about a quarter of the width.
        QVERIFY2(std::abs(late.width() - flame->width() / 4) <= 3,
                 qPrintable(QString::number(late.width())));
        QTest::mouseClick(flame, Qt::LeftButton, {}, late.center());
        QVERIFY(flame->zoomNode() != 0);
        // Zoomed: late_work fills the width, early_work is gone.
        QVERIFY(flame->frameRect(QStringLiteral("late_work")).width() >= flame->width() - 1);
        QCOMPARE(flame->frameRect(QStringLiteral("early_work")), QRect());
        // The click selected late_work: the source view says plainly it has no file.
        QVERIFY2(panel.sourceView()->status().contains(QStringLiteral("No source for late_work")),
                 qPrintable(panel.sourceView()->status()));
        // ... and its callers and callees: main calls it in all 1000 samples, it calls
        // helper in 750.
        QTableWidget* callers = panel.callersCallees()->callers();
        QTableWidget* callees = panel.callersCallees()->callees();
        QCOMPARE(callers->rowCount(), 1);
        QCOMPARE(callers->item(0, 0)->text(), QStringLiteral("main"));
        QCOMPARE(callers->item(0, 1)->text(), QStringLiteral("1000"));
        QCOMPARE(callees->rowCount(), 1);
        QCOMPARE(callees->item(0, 0)->text(), QStringLiteral("helper"));
        QCOMPARE(callees->item(0, 2)->text(), QStringLiteral("75.0%"));
        QVERIFY(flame->canGoBack());
        flame->back();
        QCOMPARE(flame->zoomNode(), 0u);
        QVERIFY(!flame->frameRect(QStringLiteral("early_work")).isEmpty());

        // Search: helper is on 750 of 4000 stacks; the top table keeps only its row.
        QTest::keyClicks(panel.searchBox(), QStringLiteral("helper"));
        QCOMPARE(flame->searchShare(), 750.0 / 4000.0);
        QVERIFY(flame->searchSummary().contains(QStringLiteral("18.8%")));
        QCOMPARE(panel.topProxy()->rowCount(), 1);
        QCOMPARE(panel.topProxy()->index(0, 0).data().toString(), QStringLiteral("helper"));
        // Icicle puts the root row at the top.
        const QRect flameRoot = flame->frameRect(QStringLiteral("main"));
        flame->setIcicle(true);
        QVERIFY(flame->frameRect(QStringLiteral("main")).top() < flameRoot.top());
    }

    // Issue 48: a right-click on a row of every table and tree opens the transforms' menu
    // (it was attached to their viewports, which never asked); so do Ctrl+T and the
    // toolbar's Transform button for the selected row.
    void everyViewHasTheTransformMenu() {
        FakeRecording rec;
        AnalysisPanel panel;
        panel.resize(1200, 700);
        panel.show();
        panel.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&panel)); // a shortcut needs an active window
        panel.showRecording(rec.model, nullptr, false);
        QVERIFY(waitForResult(panel));
        const auto popupAfter = [&](const std::function<void()>& act) {
            act();
            QMenu* menu = nullptr;
            const bool shown = QTest::qWaitFor(
                [&] {
                    menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
                    return menu != nullptr;
                },
                2000);
            const bool ok = shown && menu->findChild<QAction*>(QStringLiteral("transformMerge"));
            if (menu) menu->close();
            // The menu goes (deleted on close) and gives the window back its focus.
            return QTest::qWaitFor([&] {
                       return !QApplication::activePopupWidget() &&
                              QApplication::activeWindow() == &panel;
                   }) &&
                   ok;
        };
        QAbstractItemView* tables[] = {panel.topView(), panel.findChild<QTreeView*>("callTreeView"),
                                       panel.findChild<QTreeView*>("bottomUpView")};
        for (QAbstractItemView* view : tables) {
            QVERIFY(view);
            panel.tabs()->setCurrentWidget(view);
            QTRY_VERIFY(view->model()->rowCount() > 0);
            const QRect row = view->visualRect(view->model()->index(0, 0));
            QVERIFY2(popupAfter([&] {
                         QContextMenuEvent e(QContextMenuEvent::Mouse, row.center(),
                                             view->viewport()->mapToGlobal(row.center()));
                         QApplication::sendEvent(view->viewport(), &e);
                     }),
                     qPrintable(view->objectName()));
            // Ctrl+T and the button: the selected row's menu.
            view->setCurrentIndex(view->model()->index(0, 0));
            view->setFocus();
            QTRY_COMPARE(QApplication::focusWidget(), view);
            QVERIFY2(popupAfter([&] { QTest::keyClick(view, Qt::Key_T, Qt::ControlModifier); }),
                     qPrintable(view->objectName()));
            QVERIFY(popupAfter([&] { panel.transformButton()->click(); }));
        }
        // Callers / callees: the selected function's callers table.
        panel.tabs()->setCurrentWidget(panel.callersCallees());
        selectTopRow(panel, QStringLiteral("late_work"));
        QTableWidget* callers = panel.callersCallees()->callers();
        QTRY_VERIFY(callers->rowCount() > 0 || panel.callersCallees()->callees()->rowCount() > 0);
        QTableWidget* table = callers->rowCount() > 0 ? callers : panel.callersCallees()->callees();
        const QRect cell = table->visualItemRect(table->item(0, 0));
        QVERIFY(popupAfter([&] {
            QContextMenuEvent e(QContextMenuEvent::Mouse, cell.center(),
                                table->viewport()->mapToGlobal(cell.center()));
            QApplication::sendEvent(table->viewport(), &e);
        }));
    }

    // Issue 48: the first file shown opens at the function's hottest line (it opened at
    // line 1: the table had no size yet), in a pane wide enough to read.
    void sourceViewOpensAtTheHottestLine() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("long.py"));
        QVERIFY(writeNumberedLines(
            path, QStringLiteral("value_%1 = compute(%1)  # a line of ordinary length here"), 400));
        FakeRecording rec(path, 300);
        AnalysisPanel panel;
        panel.resize(1366, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.showRecording(rec.model, nullptr, false);
        QVERIFY(waitForResult(panel));
        selectTopRow(panel, QStringLiteral("helper"));
        SourceView* source = panel.sourceView();
        QCOMPARE(source->hottestLine(), 309);
        QTRY_VERIFY2(source->firstVisibleLine() > 250 && source->firstVisibleLine() < 309,
                     qPrintable(QString::number(source->firstVisibleLine())));
        const int lastVisible = source->table()->rowAt(source->table()->viewport()->height() - 1);
        QVERIFY2(lastVisible < 0 || lastVisible + 1 > 309,
                 qPrintable(QString::number(lastVisible)));
        // Wide enough for ~80 columns of code, at most 45 % of the panel.
        const int chars = source->table()->fontMetrics().horizontalAdvance(QLatin1Char('x'));
        QVERIFY2(source->width() >= std::min(80 * chars, panel.width() * 45 / 100 - 20),
                 qPrintable(QString::number(source->width())));
        QVERIFY(source->width() <= panel.width() * 45 / 100 + 10);
    }

    void sourceViewShowsLineHeat() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("app.py"));
        QVERIFY(writeNumberedLines(path, QStringLiteral("line_%1 = %1"), 15));
        FakeRecording rec(path);
        AnalysisPanel panel;
        panel.show();
        panel.showRecording(rec.model, nullptr, false);
        QVERIFY(waitForResult(panel));
        selectTopRow(panel, QStringLiteral("helper"));
        SourceView* source = panel.sourceView();
        QVERIFY2(source->status().contains(path), qPrintable(source->status()));
        QCOMPARE(source->table()->rowCount(), 16); // 15 lines and the empty one after the last \n
        QCOMPARE(source->table()->item(11, 2)->text(), QStringLiteral("line_12 = 12"));
        // Line 1 (main) is on thread 1's every stack, line 12 (idle) on thread 2's; the view
        // scrolls to the selected function's own hottest line.
        QCOMPARE(source->hottestLine(), 9);
        QCOMPARE(source->table()->item(0, 1)->text(), QStringLiteral("50.0%"));
        QCOMPARE(source->table()->item(8, 1)->text(), QStringLiteral("18.8%")); // helper, line 9
        QVERIFY(source->table()->item(2, 1)->text().isEmpty());
    }

    // Issue 47: a recorded process in a chroot names a file that is a symlink out of its
    // root. The source view says why it shows nothing, never shows this machine's file,
    // and still shows the process's own file.
    void sourceViewShowsOnlyTheProcesssOwnFiles() {
        QList<gilscope::test::Interpreter> chroot;
        for (const auto& in : gilscope::test::findInterpreters())
            if (in.inChroot) chroot << in;
        GILSCOPE_REQUIRE(!chroot.isEmpty(),
                         "no chroot interpreter (scripts/setup-python-chroot.sh)");
        QTemporaryDir secretDir, dir;
        QVERIFY(secretDir.isValid() && dir.isValid());
        const QByteArray secret = "GILSCOPE-WINDOW-SECRET";
        const QString secretFile = secretDir.filePath(QStringLiteral("secret.py"));
        QFile s(secretFile);
        QVERIFY(s.open(QIODevice::WriteOnly));
        for (int i = 0; i < 6; ++i)
            s.write(secret + "\n");
        s.close();
        const QString escape = dir.filePath(QStringLiteral("escape.py"));
        QVERIFY(QFile::link(secretFile, escape));
        const QString legit = dir.filePath(QStringLiteral("legit.py"));
        QFile l(legit);
        QVERIFY(l.open(QIODevice::WriteOnly));
        l.write("def spin():\n    WINDOW_LEGIT_2\n    WINDOW_LEGIT_3\n    WINDOW_LEGIT_4\n");
        l.close();
        gilscope::test::TargetOptions options;
        options.args = {escape, legit};
        options.bindDirs = {dir.path()};
        gilscope::test::TargetProcess target(chroot.last(), QStringLiteral("hostile_sources.py"),
                                             options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        auto session = RecordingSession::open(int(target.pid()), SessionOptions{});
        QVERIFY2(session, session ? "" : session.error().message.c_str());
        (*session)->startSampling();
        AnalysisPanel panel;
        panel.show();
        panel.showRecording((*session)->profile(), (*session)->process(), true);
        const auto select = [&](const QString& function) {
            QTableView* view = panel.topView();
            for (int r = 0; r < view->model()->rowCount(); ++r)
                if (view->model()->index(r, 0).data().toString() == function) {
                    view->setCurrentIndex(view->model()->index(r, 0));
                    return true;
                }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(
            select(QStringLiteral("spin_0")) && select(QStringLiteral("spin_1")), 60000);
        (*session)->requestStop();
        (*session)->finish();
        SourceView* source = panel.sourceView();
        QVERIFY(select(QStringLiteral("spin_0")));
        QVERIFY2(source->status().contains(QStringLiteral("source not shown: ") + escape +
                                           QStringLiteral(" does not exist in the process's root")),
                 qPrintable(source->status()));
        QCOMPARE(source->table()->rowCount(), 0);
        QVERIFY(select(QStringLiteral("spin_1")));
        QVERIFY2(source->status().contains(legit), qPrintable(source->status()));
        QCOMPARE(source->table()->item(1, 2)->text(), QStringLiteral("    WINDOW_LEGIT_2"));
        for (int r = 0; r < source->table()->rowCount(); ++r)
            QVERIFY(!source->table()->item(r, 2)->text().contains(QString::fromLatin1(secret)));
    }

    // Recording a real process: the top-functions view shows heavy() at the share the
    // target measured itself, on every host interpreter.
    void liveTopFunctionsShares_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters(8, 13));
    }
    void liveTopFunctionsShares() {
        QFETCH(gilscope::test::Interpreter, interpreter);
        gilscope::test::TargetOptions options;
        // The target measures itself only once the recording runs (the start file).
        QTemporaryDir dir;
        const QString startFile = dir.filePath(QStringLiteral("start"));
        options.args = {QStringLiteral("3"), startFile};
        gilscope::test::TargetProcess target(
            interpreter, gilscope::test::targetScript(QStringLiteral("heavy_light_timed.py")),
            options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        MainWindow window;
        window.prompts().showMessage = [](MainWindow::MessageKind, const QString&, const QString&) {
        };
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(
            (window.picker()->refreshNow(), window.picker()->selectPid(int(target.pid()))), 20000);
        QSignalSpy ended(&window, &MainWindow::recordingEnded);
        window.recordAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.recording(), 20000);
        // While it records, the view updates on its own.
        QFile(startFile).open(QIODevice::WriteOnly);
        AnalysisPanel* panel = window.analysis();
        QTRY_VERIFY_WITH_TIMEOUT(topTotal(*panel, "heavy") > 50, 20000);
        const auto shareLine = target.readLine(60000);
        QVERIFY(shareLine && shareLine->startsWith(QLatin1String("SHARE ")));
        const double truth = shareLine->mid(6).toDouble();
        QVERIFY(ended.wait(20000) || ended.count() > 0); // the target exits: recording ends
        QTRY_VERIFY_WITH_TIMEOUT(panel->controller()->latest() &&
                                     panel->controller()->latest()->snapshot->finished &&
                                     !panel->controller()->busy(),
                                 20000);
        const double heavy = double(topTotal(*panel, "heavy")),
                     light = double(topTotal(*panel, "light"));
        const double share = 100 * heavy / (heavy + light);
        qInfo("%s: heavy %.1f%% of %.0f samples in the view; the target measured %.1f%%",
              qPrintable(interpreter.label), share, heavy + light, truth);
        QVERIFY(heavy + light > 400);
        QVERIFY2(std::abs(share - truth) <= 10, qPrintable(QString::number(share)));
    }
};

QTEST_MAIN(TestAnalysisViews)
#include "test_analysis_views.moc"
