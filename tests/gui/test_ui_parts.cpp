// The window's parts on their own (JobRunner has test_job_runner): AttachJob's
// stale-result guard, the process model's incremental merge keeping the
// view's selection, and the timeline actually painting its lanes.
#include "core/session/live_timeline.h"
#include "ui/analysis/call_tree_view.h"
#include "ui/analysis/plain_text_delegate.h"
#include "ui/analysis/status_line.h"
#include "ui/attach_job.h"
#include "ui/live_figures.h"
#include "ui/process_table_model.h"
#include "ui/rate_history.h"
#include "ui/timeline_widget.h"

#include <QHBoxLayout>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>
#include <QWidget>

#include <chrono>
#include <cmath>
#include <functional>
#include <thread>

using namespace gilscope;

namespace {

PythonProcessInfo proc(int pid) {
    PythonProcessInfo p;
    p.pid = pid;
    p.executable = "/usr/bin/python3.11";
    p.version = "3.11.2";
    p.canAttach = true;
    return p;
}

} // namespace

class TestUiParts : public QObject {
    Q_OBJECT
private slots:
    // A cancelled attach's result is dropped; only the newest attach reports. Pids
    // above any pid_max fail on the worker like a process that is gone.
    void attachReportsOnlyTheNewestAttach() {
        gilscope::ui::AttachJob job;
        QSignalSpy attached(&job, &gilscope::ui::AttachJob::attached);
        QSignalSpy failed(&job, &gilscope::ui::AttachJob::failed);
        QSignalSpy discarded(&job, &gilscope::ui::AttachJob::discarded);
        job.start(4194305, SessionOptions{});
        QVERIFY(job.busy());
        QCOMPARE(job.pid(), 4194305);
        job.cancel();
        QVERIFY(!job.busy());
        job.start(4194306, SessionOptions{});
        QCOMPARE(job.pid(), 4194306);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(discarded.count(), 1, 60000);
        QCOMPARE(failed.at(0).at(0).toInt(), 4194306);
        QCOMPARE(failed.at(0).at(1).value<ErrorKind>(), ErrorKind::ProcessNotFound);
        QVERIFY(!failed.at(0).at(2).toString().isEmpty());
        QCOMPARE(discarded.at(0).at(0).toInt(), 4194305);
        QCOMPARE(attached.count(), 0);
        QVERIFY(!job.busy());
    }

    void mergeKeepsSelection() {
        gilscope::ui::ProcessTableModel model;
        model.setProcesses({proc(10), proc(20), proc(30)});
        QTableView view;
        view.setModel(&model);
        view.selectionModel()->setCurrentIndex(
            model.index(2, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setProcesses({proc(40), proc(30), proc(10)}); // 20 gone, 40 new
        QCOMPARE(resets.count(), 0);
        QCOMPARE(model.rowCount(), 3);
        const QModelIndex current = view.selectionModel()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(current.data(gilscope::ui::ProcessTableModel::PidRole).toInt(), 30);
        QVERIFY(view.selectionModel()->isRowSelected(current.row(), {}));
    }

    void cannotAttachRowSaysWhy() {
        gilscope::ui::ProcessTableModel model;
        auto p = proc(5);
        p.canAttach = false;
        p.reason = "owned by another user; run as root";
        model.setProcesses({p});
        const QString text =
            model.index(0, gilscope::ui::ProcessTableModel::CanAttach).data().toString();
        QVERIFY2(text.contains(QStringLiteral("another user")), qPrintable(text));
    }

    // Versions sort as versions (3.9.18 before 3.13.0), not as text.
    void pythonColumnSortsByVersion() {
        using gilscope::ui::ProcessTableModel;
        QVERIFY(gilscope::ui::versionSortKey("3.9.18") < gilscope::ui::versionSortKey("3.13.0"));
        QVERIFY(gilscope::ui::versionSortKey("3.13") < gilscope::ui::versionSortKey("3.13.1"));
        ProcessTableModel model;
        auto a = proc(1), b = proc(2), c = proc(3);
        a.version = "3.13.0";
        b.version = "3.9.18";
        c.version = "3.10.2";
        model.setProcesses({a, b, c});
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(ProcessTableModel::SortRole);
        proxy.sort(ProcessTableModel::Version, Qt::AscendingOrder);
        QStringList order;
        for (int r = 0; r < 3; ++r)
            order << proxy.index(r, ProcessTableModel::Version).data().toString();
        QCOMPARE(order, (QStringList{"3.9.18", "3.10.2", "3.13.0"}));
    }

    // A newline in a command line stays on one line, escaped as `gilscope ps` does.
    void commandLineIsEscaped() {
        gilscope::ui::ProcessTableModel model;
        auto p = proc(7);
        p.commandLine = "python3 -c print(1)\nprint(2)";
        model.setProcesses({p});
        const QString text =
            model.index(0, gilscope::ui::ProcessTableModel::CommandLine).data().toString();
        QCOMPARE(text, QStringLiteral("python3 -c print(1)\\nprint(2)"));
    }

    // CPU % from the CPU time two scans apart (none after the first scan).
    void cpuColumnComesFromTwoScans() {
        using gilscope::ui::ProcessTableModel;
        ProcessTableModel model;
        auto p = proc(9);
        p.cpuSeconds = 10;
        model.setProcesses({p});
        QCOMPARE(model.index(0, ProcessTableModel::Cpu).data().toString(), QString());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        p.cpuSeconds = 10 + 1e6; // more than any wall time: a clearly positive share
        model.setProcesses({p});
        QVERIFY(
            model.index(0, ProcessTableModel::Cpu).data(ProcessTableModel::SortRole).toDouble() >
            100);
    }

    // Missed above 10 % turns red, with a tooltip on why and what helps.
    void missedRateAboveTenPercentIsFlagged() {
        gilscope::ui::LiveFigures figures;
        gilscope::SamplerStats s;
        s.missedPct = 9.9;
        figures.setStats(s);
        QVERIFY(!figures.missedFlagged());
        s.missedPct = 15;
        figures.setStats(s);
        QVERIFY(figures.missedFlagged());
        const QString tip = figures.findChild<QLabel*>(QStringLiteral("missedPct"))->toolTip();
        QVERIFY2(tip.contains(QStringLiteral("--rt-priority")) &&
                     tip.contains(QStringLiteral("lower rate")),
                 qPrintable(tip));
        figures.clear();
        QVERIFY(!figures.missedFlagged());

        // Torn reads: re-read ones are said in the tooltip; more than 2% dropped turns the
        // Errors figure red with the warning and what helps.
        auto* errors = figures.findChild<QLabel*>(QStringLiteral("errorPct"));
        s = {};
        s.torn.firstTry = 900;
        s.torn.reread = 90;
        s.torn.tries = 30;
        s.torn.dropped = 10;
        figures.setStats(s);
        QVERIFY(!figures.errorsFlagged());
        QVERIFY2(errors->toolTip().contains(QStringLiteral("read again")),
                 qPrintable(errors->toolTip()));
        s.torn.dropped = 50;
        figures.setStats(s);
        QVERIFY(figures.errorsFlagged());
        QVERIFY2(errors->toolTip().contains(QStringLiteral("--blocking")),
                 qPrintable(errors->toolTip()));
        figures.clear();
        QVERIFY(!figures.errorsFlagged());
    }

    // Ten hours at the window's 5 polls a second: the history stays bounded, still spans
    // the whole recording, and an hour of heavy misses in the middle is still visible.
    void rateHistoryStaysBoundedAndReadable() {
        gilscope::ui::RateHistory history(60, 400);
        const int perSec = 5;
        for (int i = 1; i <= 10 * 3600 * perSec; ++i) {
            const double t = double(i) / perSec;
            const bool bad = t >= 5 * 3600 && t < 6 * 3600;
            history.addPoint({t, 1000.0, bad ? 600.0 : 1000.0, bad ? 40.0 : 0.0, 0.5});
        }
        QVERIFY2(history.size() <= 400 + 1 + 60 * perSec + 1,
                 qPrintable(QString::number(history.size())));
        const auto points = history.points();
        QVERIFY(points.front().timeSec < 3600 / 4.0);
        QCOMPARE(points.back().timeSec, 36000.0);
        double worst = 0, before = 0;
        for (const auto& p : points) {
            if (p.timeSec > 5.2 * 3600 && p.timeSec < 5.8 * 3600)
                worst = std::max(worst, p.missedPct);
            if (p.timeSec < 4 * 3600) before = std::max(before, p.missedPct);
            QVERIFY(std::abs(p.errorPct - 0.5) < 1e-9); // averaging keeps steady values
        }
        QVERIFY2(worst > 30, qPrintable(QString::number(worst)));
        QCOMPARE(before, 0.0);
        for (size_t i = 1; i < points.size(); ++i)
            QVERIFY(points[i].timeSec > points[i - 1].timeSec);
    }

    // From the sampler's cumulative counters, per interval: 900 attempted + 100 missed
    // in one second is 900/s and 10 % missed, whatever came before.
    void rateHistoryUsesIntervals() {
        gilscope::ui::RateHistory history;
        gilscope::SamplerStats s;
        s.requestedRateHz = 1000;
        s.elapsedSec = 10;
        s.okTicks = 10000;
        history.add(s); // baseline
        s.elapsedSec = 11;
        s.okTicks += 890;
        s.errors += 10;
        s.missed += 100;
        history.add(s);
        const auto points = history.points();
        QCOMPARE(points.size(), size_t(1));
        QCOMPARE(points[0].achievedHz, 900.0);
        QCOMPARE(points[0].missedPct, 10.0);
        QVERIFY(std::abs(points[0].errorPct - 100.0 * 10 / 900) < 1e-9);
    }

    void timelinePaintsLanes() {
        gilscope::TimelineSnapshot s;
        s.bucketUs = 100'000;
        s.spanUs = 1'000'000;
        s.samples = 100;
        gilscope::ThreadTimeline t;
        t.threadId = 42;
        t.mainThread = true;
        t.samples = 100;
        t.buckets.resize(10);
        for (auto& b : t.buckets) {
            b.samples = 10;
            b.hasGil = 10;                                        // fully green lane
            b.states[size_t(gilscope::TrackState::GilHeld)] = 10; // and strip
        }
        s.threads = {t, t};
        s.threads[1].mainThread = false;
        gilscope::ui::TimelineWidget widget;
        const int emptyHeight = widget.sizeHint().height();
        widget.setSnapshot(s);
        QVERIFY(widget.sizeHint().height() > emptyHeight);
        widget.resize(800, widget.sizeHint().height());
        const QImage image = widget.grab().toImage();
        int green = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 200; x < image.width(); ++x)
                if (image.pixelColor(x, y) == QColor(46, 160, 67)) ++green;
        QVERIFY2(green > 1000, qPrintable(QString::number(green))); // two full lanes
    }

    // The analysis tables' delegate keeps texts laid out between repaints: a right-aligned
    // figure is drawn at the right of its cell, a name too long for its cell is elided
    // within it, and a new text in the same cell (a live update) replaces the old one.
    void callTreeViewDrawsEachRowsOwnArrow() {
        // A chain four deep, each node with one child but the last.
        QStandardItemModel model;
        QStandardItem* parent = model.invisibleRootItem();
        QList<QStandardItem*> chain;
        for (int depth = 0; depth < 5; ++depth) {
            auto* item = new QStandardItem(QStringLiteral("f%1").arg(depth));
            parent->appendRow(item);
            chain.append(item);
            parent = item;
        }
        ui::CallTreeView view;
        view.setModel(&model);
        view.setIndentation(20);
        view.expandAll();
        view.collapse(chain[3]->index()); // f3: closed, so f4 is not shown
        view.resize(400, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage img = view.viewport()->grab().toImage();
        const QRgb bg = img.pixel(img.width() - 2, 1);
        auto inkIn = [&](int row, int x0, int x1) {
            const int y0 = row * view.sizeHintForRow(0);
            int ink = 0;
            for (int x = x0; x < x1; ++x)
                for (int y = y0; y < y0 + view.sizeHintForRow(0); ++y)
                    if (std::abs(qGray(img.pixel(x, y)) - qGray(bg)) > 60) ++ink;
            return ink;
        };
        // Rows f0..f3 have children: an arrow at their own level, nothing at their
        // ancestors' levels.
        for (int row = 0; row < 4; ++row) {
            QVERIFY2(inkIn(row, row * 20, row * 20 + 20) > 0, qPrintable(QString::number(row)));
            QCOMPARE(inkIn(row, 0, row * 20), 0);
        }
        // A leaf has no arrow anywhere left of its text.
        view.expand(chain[3]->index());
        QTRY_VERIFY(view.visualRect(chain[4]->index()).isValid());
        const QImage open = view.viewport()->grab().toImage();
        const int leafY = view.visualRect(chain[4]->index()).top();
        for (int x = 0; x < 4 * 20 + 20; ++x)
            for (int y = leafY; y < leafY + view.sizeHintForRow(0); ++y)
                QVERIFY(std::abs(qGray(open.pixel(x, y)) - qGray(bg)) <= 60);
        // Open (f2) and closed (f3) arrows differ: down and right.
        auto shape = [&](int row) {
            QImage part =
                img.copy(row * 20, row * view.sizeHintForRow(0), 20, view.sizeHintForRow(0));
            return part.convertToFormat(QImage::Format_Grayscale8);
        };
        QVERIFY(shape(2) != shape(3));
        QCOMPARE(shape(1), shape(2)); // both open
    }

    void statusLineNewTextIsOnlyARepaint() {
        // Counts the layout passes a text change asks of the parent.
        struct LayoutCounter : QObject {
            int requests = 0;
            bool eventFilter(QObject*, QEvent* e) override {
                if (e->type() == QEvent::LayoutRequest) ++requests;
                return false;
            }
        };
        auto passesFor = [](QWidget* line, const std::function<void(int)>& setText) {
            QWidget bar;
            auto* row = new QHBoxLayout(&bar);
            row->addWidget(new QLabel(QStringLiteral("left"), &bar));
            line->setParent(&bar);
            row->addWidget(line, 1);
            bar.resize(500, 30);
            bar.show();
            if (!QTest::qWaitForWindowExposed(&bar)) return -1;
            LayoutCounter counter;
            bar.installEventFilter(&counter);
            for (int i = 0; i < 5; ++i) {
                setText(i);
                QCoreApplication::processEvents();
            }
            return counter.requests;
        };
        auto text = [](int i) { return QStringLiteral("%1 of 99 thread-samples").arg(i * 1111); };
        auto* line = new ui::StatusLine;
        QCOMPARE(passesFor(line, [&](int i) { line->setText(text(i)); }), 0);
        auto* label = new QLabel;
        QVERIFY(passesFor(label, [&](int i) { label->setText(text(i)); }) > 0); // what it avoids
    }

    void plainTextDelegateAlignsElidesAndUpdates() {
        QStandardItemModel model(1, 2);
        model.setItem(0, 0, new QStandardItem(QString(60, QLatin1Char('W'))));
        auto* figure = new QStandardItem(QStringLiteral("42"));
        figure->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        model.setItem(0, 1, figure);
        QTableView view;
        view.setItemDelegate(new ui::PlainTextDelegate(&view));
        view.setModel(&model);
        view.setShowGrid(false);
        view.setColumnWidth(0, 120);
        view.setColumnWidth(1, 200);
        view.resize(400, 100);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Columns of ink in [x0, x1) of the first row, against the background.
        auto inkColumns = [&](int x0, int x1) {
            const QImage img = view.viewport()->grab().toImage();
            const int rowY = view.rowViewportPosition(0), rowH = view.rowHeight(0);
            const QRgb bg = img.pixel(x1 - 2, rowY + 1);
            QList<int> xs;
            for (int x = x0; x < x1; ++x)
                for (int y = rowY; y < rowY + rowH; ++y)
                    if (qGray(img.pixel(x, y)) + 60 < qGray(bg)) {
                        xs.append(x);
                        break;
                    }
            return xs;
        };
        const int c1 = view.columnViewportPosition(1);
        const QList<int> figureInk = inkColumns(c1, c1 + 200);
        QVERIFY(!figureInk.isEmpty());
        QVERIFY2(figureInk.first() > c1 + 150, "a right-aligned figure is drawn at the right");
        // The long name stays inside its 120 px (elided), none of it in the next cell.
        const QList<int> nameInk = inkColumns(0, c1);
        QVERIFY(!nameInk.isEmpty());
        QVERIFY(nameInk.last() < c1);
        QVERIFY(inkColumns(c1, c1 + 140).isEmpty());
        // A live update's new text: a longer figure reaches further left.
        figure->setText(QStringLiteral("4242424242"));
        QTRY_VERIFY(inkColumns(c1, c1 + 200).first() < figureInk.first() - 20);
    }
};

QTEST_MAIN(TestUiParts)
#include "test_ui_parts.moc"
