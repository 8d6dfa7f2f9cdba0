// File › Compare with… in the window, on real recordings of heavy_light_split.py made by
// `gilscope attach` under the first and last interpreters present: a 30/70 recording
// opened and compared with a 70/30 baseline shows heavy_part shrunk and light_part grown
// by about 40 points in Top functions' Δ column (the same figures `gilscope diff`
// prints) and in the flame graph's colours; a recording compared with itself shows no
// change under every filter (each side filtered the same way); a time range the baseline
// does not overlap applies to the current side only, and the bar says so; a baseline of
// another mode is refused; Clear removes the comparison.
#include "core/analysis/profile_snapshot.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/split_recording.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/compare_bar.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/top_functions_model.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"

#include <QAction>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace gilscope;
using namespace gilscope::ui;
using namespace gilscope::test;

namespace {

struct Window {
    MainWindow window;
    QStringList errors;
    QString baselinePath;
    Window() {
        window.prompts().showMessage = [this](MainWindow::MessageKind, const QString& t,
                                              const QString& m) { errors << t + ": " + m; };
        window.compare()->showError = [this](const QString& t, const QString& m) {
            errors << t + ": " + m;
        };
        window.compare()->askBaselinePath = [this] { return baselinePath; };
        window.resize(1400, 900);
        window.show();
    }
    AnalysisPanel& panel() { return *window.analysis(); }
    // Opens a .bin and waits for its first analysis result.
    bool open(const QString& path) {
        QSignalSpy loaded(&window, &MainWindow::recordingLoaded);
        window.openRecordingFile(path);
        if (!loaded.wait(60000) || !loaded.at(0).at(0).toBool()) return false;
        return QTest::qWaitFor([&] { return panel().topModel()->rowCount() > 0; }, 60000);
    }
    // Triggers File › Compare with… and waits for a comparison other than `previous`.
    bool compareWith(const QString& path) {
        baselinePath = path;
        const ComparisonPtr before = window.compare()->controller()->comparison();
        const qsizetype errorsBefore = errors.size();
        window.compare()->compareAction()->trigger();
        return QTest::qWaitFor(
            [&] {
                const ComparisonPtr now = window.compare()->controller()->comparison();
                return errors.size() > errorsBefore || (now && now != before);
            },
            60000);
    }
    int row(const QString& function) {
        auto* m = panel().topModel();
        for (int r = 0; r < m->rowCount(); ++r)
            if (m->index(r, TopFunctionsModel::Name).data().toString() == function) return r;
        return -1;
    }
    // The Δ column as displayed ("+37.1"), parsed; NaN when empty or absent.
    double delta(const QString& function) {
        const int r = row(function);
        if (r < 0) return NAN;
        bool ok = false;
        const double d =
            panel().topModel()->index(r, TopFunctionsModel::Delta).data().toString().toDouble(&ok);
        return ok ? d : NAN;
    }
    double frameChange(const QString& function) {
        FlameGraphWidget* flame = panel().flameGraph();
        const QRect rect = flame->frameRect(function);
        return rect.isEmpty() ? NAN : flame->frameChange(flame->nodeAt(rect.center()));
    }
    // The colour painted in a frame's top-right corner (clear of its name).
    QColor frameColour(const QString& function) {
        FlameGraphWidget* flame = panel().flameGraph();
        const QRect rect = flame->frameRect(function);
        if (rect.width() < 10) return {};
        return flame->grab().toImage().pixelColor(rect.right() - 3, rect.top() + 2);
    }
};

QJsonObject cliRow(const QString& base, const QString& cur, const QString& function) {
    const RunResult r = runGilscope({"diff", base, cur, "--json", "-l", "0"});
    for (const auto& v : QJsonDocument::fromJson(r.outBytes).object()["rows"].toArray())
        if (v.toObject()["function"].toString() == function) return v.toObject();
    return {};
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        qRegisterMetaType<ComparisonPtr>();
        all_ = findInterpreters();
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        if (all_.size() > 2) all_ = {all_.first(), all_.last()}; // two versions keep it short
        printTestedInterpreters(all_);
    }

    void seventyThirtyAgainstThirtySeventy_data() { addInterpreterRows(all_); }
    void seventyThirtyAgainstThirtySeventy() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        const SplitRecording base =
            recordSplit(interpreter, dir.path(), "base", 70, 2, {"--mode", "all"});
        QVERIFY2(base.error.isEmpty(), qPrintable(base.error));
        const SplitRecording cur =
            recordSplit(interpreter, dir.path(), "cur", 30, 2, {"--mode", "all"});
        QVERIFY2(cur.error.isEmpty(), qPrintable(cur.error));
        const double truth = cur.heavyPct - base.heavyPct;

        Window w;
        QVERIFY(w.open(cur.bin));
        QTableView* top = w.panel().topView();
        QVERIFY(top->isColumnHidden(TopFunctionsModel::Delta)); // nothing compared yet
        QVERIFY(std::isnan(w.delta("heavy_part")));
        QVERIFY(w.compareWith(base.bin));
        QVERIFY2(w.errors.isEmpty(), qPrintable(w.errors.join('\n')));
        QVERIFY(!top->isColumnHidden(TopFunctionsModel::BaselinePct));
        QVERIFY(!top->isColumnHidden(TopFunctionsModel::Delta));
        auto* bar = w.window.findChild<CompareBar*>(QStringLiteral("compareBar"));
        QVERIFY(bar && bar->isVisible());
        QVERIFY2(bar->note()->text().contains("base.bin"), qPrintable(bar->note()->text()));

        const double dHeavy = w.delta("heavy_part"), dLight = w.delta("light_part");
        qInfo("%s: window Δ heavy_part %+.1f, light_part %+.1f; the targets ran %.1f%% and "
              "%.1f%% (%+.1f)",
              qPrintable(interpreter.label), dHeavy, dLight, base.heavyPct, cur.heavyPct, truth);
        QVERIFY2(std::abs(dHeavy - truth) <= 12, qPrintable(QString::number(dHeavy)));
        QVERIFY2(std::abs(dLight + truth) <= 12, qPrintable(QString::number(dLight)));
        QVERIFY(dHeavy < -20 && dLight > 20);
        // The same figures as `gilscope diff` (the window shows one decimal).
        const QJsonObject cli = cliRow(base.bin, cur.bin, "heavy_part");
        QVERIFY(!cli.isEmpty());
        QVERIFY(std::abs(cli["delta_total_pct"].toDouble() - dHeavy) <= 0.051);
        const int heavyRow = w.row("heavy_part");
        QVERIFY(std::abs(w.panel()
                             .topModel()
                             ->index(heavyRow, TopFunctionsModel::BaselinePct)
                             .data()
                             .toString()
                             .toDouble() -
                         cli["baseline_total_pct"].toDouble()) <= 0.051);

        // The flame graph: heavy_part's frame is blue (shrank), light_part's red (grew).
        w.panel().tabs()->setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(!w.panel().flameGraph()->frameRect("heavy_part").isEmpty(), 30000);
        QVERIFY(std::abs(w.frameChange("heavy_part") - dHeavy) <= 0.06);
        QVERIFY(std::abs(w.frameChange("light_part") - dLight) <= 0.06);
        const QColor shrank = w.frameColour("heavy_part"), grew = w.frameColour("light_part");
        QCOMPARE(shrank.rgb(), FlameGraphWidget::changeColor(w.frameChange("heavy_part")).rgb());
        QCOMPARE(grew.rgb(), FlameGraphWidget::changeColor(w.frameChange("light_part")).rgb());
        QVERIFY2(shrank.hue() >= 200 && shrank.hue() <= 240 && shrank.saturation() > 150,
                 qPrintable(shrank.name()));
        QVERIFY2((grew.hue() <= 10 || grew.hue() >= 350) && grew.saturation() > 150,
                 qPrintable(grew.name()));

        // A time range on the current recording: the baseline's times are elsewhere, so it
        // keeps all its samples, and the bar says so.
        const uint64_t baseSamples =
            w.window.compare()->controller()->comparison()->baseline.samples;
        const auto snap = w.panel().controller()->latest()->snapshot;
        const ComparisonPtr before = w.window.compare()->controller()->comparison();
        w.panel().controller()->setRange(snap->originUs + 500'000, snap->originUs + 1'500'000);
        QTRY_VERIFY_WITH_TIMEOUT(w.window.compare()->controller()->comparison() != before, 30000);
        const ComparisonPtr ranged = w.window.compare()->controller()->comparison();
        QVERIFY(!ranged->rangeApplied);
        QCOMPARE(ranged->baseline.samples, baseSamples);
        QVERIFY2(bar->note()->text().contains("this recording only"),
                 qPrintable(bar->note()->text()));

        // Clear: no columns, no bar, module colours again.
        w.window.compare()->clearAction()->trigger();
        QVERIFY(top->isColumnHidden(TopFunctionsModel::Delta));
        QVERIFY(!bar->isVisible());
        QVERIFY(std::isnan(w.frameChange("heavy_part")));
        QVERIFY(!w.window.compare()->clearAction()->isEnabled());
    }

    // A recording against itself: no change for any function, whatever the filter, since
    // each side is filtered the same way (the range overlaps here, so it applies to both).
    void itselfShowsNoChangeUnderEveryFilter() {
        QTemporaryDir dir;
        const SplitRecording rec =
            recordSplit(all_.last(), dir.path(), "rec", 70, 2, {"--mode", "all"});
        QVERIFY2(rec.error.isEmpty(), qPrintable(rec.error));
        Window w;
        QVERIFY(w.open(rec.bin));
        QVERIFY(w.compareWith(rec.bin));
        QVERIFY2(w.errors.isEmpty(), qPrintable(w.errors.join('\n')));
        CompareController* compare = w.window.compare()->controller();
        AnalysisController* analysis = w.panel().controller();
        auto check = [&](const char* what, std::vector<const char*> functions = {
                                               "heavy_part", "light_part", "busy"}) {
            // Wait until the views and the comparison are both for the latest filter.
            QTRY_VERIFY_WITH_TIMEOUT(!analysis->busy() && analysis->latest() &&
                                         analysis->latest()->snapshot->filter ==
                                             analysis->filter() &&
                                         compare->comparison() &&
                                         compare->comparison()->baseline.samples ==
                                             analysis->latest()->snapshot->matchedSamples,
                                     30000);
            for (const char* f : functions)
                QVERIFY2(w.delta(f) == 0.0,
                         qPrintable(QString("%1: %2 %3").arg(what, f).arg(w.delta(f))));
        };
        check("all");
        if (QTest::currentTestFailed()) return;
        const uint64_t allSamples = compare->comparison()->baseline.samples;
        analysis->setState(StateFilter::OnCpu);
        check("on CPU");
        if (QTest::currentTestFailed()) return;
        const auto snap = analysis->latest()->snapshot;
        analysis->setRange(snap->originUs + 500'000, snap->originUs + 1'200'000);
        check("range");
        if (QTest::currentTestFailed()) return;
        QVERIFY(compare->comparison()->rangeApplied);
        QVERIFY(compare->comparison()->baseline.samples < allSamples / 2);
        // A call-tree transform reshapes the baseline as it does the recording.
        const uint64_t before = analysis->latest()->snapshot->matchedSamples;
        analysis->addTransform({TransformKind::DropFunction, {"light_part", ""}, {}, {}});
        QTRY_VERIFY_WITH_TIMEOUT(analysis->latest()->snapshot->matchedSamples < before, 30000);
        check("a transform", {"heavy_part", "busy"});
        QVERIFY(std::isnan(w.delta("light_part"))); // dropped on both sides
    }

    // A live recording (the window's all mode) compared with a wall-mode baseline while it
    // records: the Δ column follows the live updates. (How close the shares come to what
    // the targets ran is checked on opened recordings above, which hold the loop only.)
    void liveRecordingAgainstBaseline() {
        const auto host = findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!host.isEmpty(), "no host interpreter");
        QTemporaryDir dir;
        const SplitRecording base = recordSplit(host.last(), dir.path(), "base", 70, 2);
        QVERIFY2(base.error.isEmpty(), qPrintable(base.error));
        TargetOptions options;
        options.args = {"60", "30"}; // stopped by the test once it has seen enough
        TargetProcess target(host.last(), targetScript("heavy_light_split.py"), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        Window w;
        QTRY_VERIFY_WITH_TIMEOUT(
            (w.window.picker()->refreshNow(), w.window.picker()->selectPid(int(target.pid()))),
            20000);
        w.window.recordAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(w.window.recording(), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(w.panel().topModel()->rowCount() > 0, 20000);
        QVERIFY(w.compareWith(base.bin));
        QVERIFY2(w.errors.isEmpty(), qPrintable(w.errors.join('\n')));
        // While it records, light_part's growth and heavy_part's shrinking show.
        QTRY_VERIFY_WITH_TIMEOUT(w.delta("light_part") > 20 && w.delta("heavy_part") < -20, 30000);
        QVERIFY(w.window.recording());
        const uint64_t seen = w.panel().controller()->latest()->snapshot->matchedSamples;
        qInfo("%s live: window Δ heavy_part %+.1f, light_part %+.1f after %llu samples",
              qPrintable(host.last().label), w.delta("heavy_part"), w.delta("light_part"),
              qulonglong(seen));
        // And it keeps following: a later update (more samples) is compared too.
        QTRY_VERIFY_WITH_TIMEOUT(
            w.panel().controller()->latest()->snapshot->matchedSamples > seen + 200, 30000);
        QVERIFY(!std::isnan(w.delta("heavy_part")));
        w.window.stopAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!w.window.recording(), 30000);
    }

    // A baseline that sampled other threads (CPU mode) is refused with a message.
    void otherModeIsRefused() {
        QTemporaryDir dir;
        const SplitRecording wall = recordSplit(all_.first(), dir.path(), "wall", 70, 1);
        QVERIFY2(wall.error.isEmpty(), qPrintable(wall.error));
        const SplitRecording cpu =
            recordSplit(all_.first(), dir.path(), "cpu", 70, 1, {"--mode", "cpu"});
        QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
        Window w;
        QVERIFY(w.open(wall.bin));
        QVERIFY(w.compareWith(cpu.bin));
        QCOMPARE(w.errors.size(), 1);
        QVERIFY2(w.errors[0].contains("Cannot compare") && w.errors[0].contains("cpu mode"),
                 qPrintable(w.errors[0]));
        QVERIFY(!w.window.compare()->controller()->active());
        QVERIFY(w.panel().topView()->isColumnHidden(TopFunctionsModel::Delta));
        // Not a recording at all: the reader's message, nothing compared.
        QFile junk(dir.filePath("junk.bin"));
        QVERIFY(junk.open(QIODevice::WriteOnly) && junk.write(QByteArray(4096, 'x')) == 4096);
        junk.close();
        QVERIFY(w.compareWith(junk.fileName()));
        QCOMPARE(w.errors.size(), 2);
        QVERIFY(!w.window.compare()->controller()->active());
        QVERIFY(w.panel().topView()->isColumnHidden(TopFunctionsModel::Delta));
    }
};

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
