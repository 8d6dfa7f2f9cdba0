// The Stack chart tab against a real recording, on every interpreter present: a Python
// target whose stack changes at every sample (random_recursion.py: a random depth each
// time) is recorded into the analysis model and, beside it, into a sink that keeps
// what the sampler read at each time. The tab, driven through the analysis panel (a
// time range as the timeline drag sets it, thread selection, search), must show in the
// column at time t the stack recorded at t, and that sample's state under it.
#include "core/analysis/profile_model.h"
#include "core/remote/live_stack_source.h"
#include "core/sample/tee_sink.h"
#include "core/sampler/recording.h"
#include "core/session/live_timeline.h"
#include "tests/support/python_interpreters.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/analysis_result.h"
#include "ui/analysis/stack_chart_view.h"
#include "ui/analysis/stack_chart_widget.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QWheelEvent>

#include <mutex>

using namespace gilscope;
using namespace gilscope::ui;
using gilscope::test::Interpreter;

namespace {

// What the sampler read: per thread-sample, its time, status and function names (root
// first), resolved when it arrived. The test's reference, kept apart from the model.
class ReadStacks final : public SampleSink {
public:
    struct Sample {
        uint64_t threadId = 0;
        uint64_t timeUs = 0;
        uint32_t status = 0;
        QStringList names;
    };
    void begin(const FrameRegistry& registry, const RecordingInfo&) override {
        registry_ = &registry;
    }
    void addBatch(const SampleBatch& batch) override {
        QStringList names;
        for (auto it = batch.frames.rbegin(); it != batch.frames.rend(); ++it)
            names << QString::fromStdString(registry_->string(registry_->frame(*it).funcname));
        std::lock_guard lock(mutex_);
        for (uint64_t t : batch.timestampsUs)
            samples_.push_back({batch.threadId, t, batch.status, names});
    }
    std::vector<Sample> samples() const {
        std::lock_guard lock(mutex_);
        return samples_;
    }

private:
    const FrameRegistry* registry_ = nullptr;
    mutable std::mutex mutex_;
    std::vector<Sample> samples_;
};

// Waits until the chart on screen was computed for the view's current width and no
// request is waiting.
bool waitForChart(StackChartView* view, uint64_t startUs = 0) {
    auto ready = [&] {
        const StackChart* c = view->chart()->chart();
        return c && !view->busy() && int(c->widthPx) == view->chart()->width() &&
               (!startUs || c->startUs == startUs);
    };
    for (int i = 0; i < 600 && !ready(); ++i) {
        QSignalSpy spy(view, &StackChartView::chartShown);
        spy.wait(100);
    }
    return ready();
}

} // namespace

class TestStackChartTab : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        gilscope::test::printTestedInterpreters(gilscope::test::findInterpreters(8, 99));
    }

    void columnShowsTheStackRecordedAtItsTime_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters(8, 99));
    }
    void columnShowsTheStackRecordedAtItsTime() {
        QFETCH(Interpreter, interpreter);
        gilscope::test::TargetProcess target(
            interpreter, gilscope::test::targetScript(QStringLiteral("random_recursion.py")));
        QVERIFY2(target.start(), qPrintable(target.error()));

        // Record 1 kHz into the model and the reference side by side.
        SamplerOptions options;
        options.intervalUs = 1000;
        auto source = openLiveProcess(int(target.pid()), options.read);
        QVERIFY2(source, source ? "" : source.error().message.c_str());
        auto model = std::make_shared<ProfileModel>();
        ReadStacks read;
        LiveTimeline timeline;
        TeeSink tee;
        tee.add(model.get());
        tee.add(&read);
        tee.add(&timeline);
        {
            Recording recording(**source, tee, options);
            recording.start();
            QTRY_VERIFY_WITH_TIMEOUT(read.samples().size() >= 1500, 60000);
            recording.requestStop();
            recording.finish();
        }
        const std::vector<ReadStacks::Sample> samples = read.samples();
        const uint64_t tid = samples.front().threadId;

        TimelineWidget timelineView;
        timelineView.resize(1300, 300);
        timelineView.setSnapshot(timeline.snapshot());
        timelineView.show();
        AnalysisPanel panel;
        panel.attachTimeline(&timelineView);
        panel.resize(1300, 700);
        panel.show();
        panel.showRecording(model, nullptr, false);
        StackChartView* view = panel.stackChart();
        StackChartWidget* chart = view->chart();
        panel.tabs()->setCurrentWidget(view);
        QVERIFY(waitForChart(view));
        QCOMPARE(chart->chart()->lanes.size(), 1u);
        QCOMPARE(chart->chart()->lanes[0].threadId, tid);

        // The whole recording, several samples per column: every column shows one of
        // the stacks read in its time (a sample lasts to the next, at most 2 intervals),
        // or nothing when the sampler read nothing then (a stall on a loaded machine).
        const StackChart& whole = *chart->chart();
        auto coverEnd = [&](size_t k) {
            return samples[k].timeUs +
                   (k + 1 < samples.size()
                        ? std::min<uint64_t>(samples[k + 1].timeUs - samples[k].timeUs, 2000)
                        : 1000);
        };
        int columns = 0, shown = 0;
        for (uint32_t x = 0; x < whole.widthPx; ++x) {
            const uint64_t from = whole.columnStartUs(x), to = whole.columnStartUs(x + 1);
            if (from < samples.front().timeUs || to > samples.back().timeUs) continue;
            ++columns;
            const QStringList stack = chart->stackAt(tid, chart->xAt(from));
            bool covered = false, match = false;
            for (size_t k = 0; k < samples.size(); ++k)
                if (coverEnd(k) > from && samples[k].timeUs < to) {
                    covered = true;
                    match = match || samples[k].names == stack;
                }
            if (match || (!covered && stack.isEmpty())) ++shown;
        }
        qInfo("%s: %zu samples; %d of %d columns show a stack read in their time",
              qPrintable(interpreter.label), samples.size(), shown, columns);
        QVERIFY(columns > 500);
        QCOMPARE(shown, columns);

        // Zooming the timeline zooms the chart to the same span.
        timelineView.zoomAt(timelineView.width() / 2, 0.25);
        QVERIFY(timelineView.zoomed());
        QVERIFY(waitForChart(view, timelineView.viewStartUs()));
        QCOMPARE(chart->chart()->endUs, timelineView.viewEndUs());
        // Ctrl+wheel on the chart zooms the timeline (and so the chart) around that time.
        const uint64_t spanBefore = timelineView.viewEndUs() - timelineView.viewStartUs();
        const QPoint at(chart->width() / 3, 30);
        QWheelEvent wheel(at, chart->mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chart, &wheel);
        QVERIFY(timelineView.viewEndUs() - timelineView.viewStartUs() < spanBefore);
        QVERIFY(waitForChart(view, timelineView.viewStartUs()));
        timelineView.resetZoom();

        // Zoomed to 40 samples (as a drag on the timeline sets the range): ~30 columns a
        // sample. The column at a sample's time shows its stack and its state.
        // The window where the stack changed most, among those the sampler read without
        // a stall (on a loaded machine the target may not run for a while, and its
        // stack stays; or the sampler may not).
        auto changesIn = [&](size_t from) {
            int n = 0;
            for (size_t k = from; k < from + 40; ++k)
                n += samples[k + 1].names != samples[k].names;
            return n;
        };
        auto spanOf = [&](size_t from) { return samples[from + 40].timeUs - samples[from].timeUs; };
        size_t first = 100;
        for (size_t k = 100; k + 100 < samples.size(); k += 10) {
            const bool steady = spanOf(k) <= 80'000, firstSteady = spanOf(first) <= 80'000;
            if ((steady && (!firstSteady || changesIn(k) > changesIn(first))) ||
                (!firstSteady && spanOf(k) < spanOf(first)))
                first = k;
        }
        const size_t last = first + 40;
        panel.controller()->setRange(samples[first].timeUs, samples[last].timeUs);
        QVERIFY(waitForChart(view, samples[first].timeUs));
        int compared = 0, changes = 0;
        for (size_t k = first; k < last; ++k) {
            const uint64_t t = samples[k].timeUs;
            const uint64_t cover = std::min<uint64_t>(samples[k + 1].timeUs - t, 2000);
            const int x = chart->xAt(t) + 1; // its first column wholly at or after t
            if (chart->xAt(t + cover) - x < 2) continue;
            ++compared;
            QCOMPARE(chart->stackAt(tid, x), samples[k].names);
            QCOMPARE(chart->stateAt(tid, x), columnStateOf(samples[k].status));
            if (samples[k + 1].names != samples[k].names) ++changes;
        }
        qInfo("%s: %d sample columns compared, the stack changed %d times",
              qPrintable(interpreter.label), compared, changes);
        QVERIFY(compared >= 25);
        QVERIFY(changes >= 5); // a chart off by one sample would fail

        // The tooltip names the frame, its file:line and how long it ran: the root frame
        // is the script's <module>, the leaf whatever ran then.
        const int x = chart->xAt(samples[first + 5].timeUs) + 1;
        const QStringList stack = chart->stackAt(tid, x);
        QVERIFY(!stack.isEmpty());
        const QString rootTip = chart->toolTipAt(chart->frameRect(tid, 0, x).center());
        QVERIFY2(rootTip.startsWith(QStringLiteral("<module>\n")) &&
                     rootTip.contains(QStringLiteral("random_recursion.py:")) &&
                     rootTip.contains(QStringLiteral(" ms")),
                 qPrintable(rootTip));
        const QString leafTip =
            chart->toolTipAt(chart->frameRect(tid, int(stack.size()) - 1, x).center());
        QVERIFY2(leafTip.startsWith(stack.last() + QLatin1Char('\n')), qPrintable(leafTip));

        // What is painted there: the script's frames in its module's colour (the flame
        // graph's), the state strip in the state's colour.
        const QColor scriptColor = moduleColor(
            gilscope::test::targetScript(QStringLiteral("random_recursion.py")).toStdString());
        auto pixel = [&](QPoint p) { return chart->grab().toImage().pixelColor(p).rgb(); };
        auto fillPoint = [&](int depth) {
            const QRect r = chart->frameRect(tid, depth, x);
            return QPoint(r.left() + 1, r.center().y()); // left of the name
        };
        QCOMPARE(pixel(fillPoint(0)), scriptColor.rgb()); // <module>
        QCOMPARE(pixel(QPoint(x, chart->stripRect(tid).center().y())),
                 StackChartWidget::stateColor(chart->stateAt(tid, x)).rgb());

        // Search highlights matching frames, through the panel's search box.
        panel.searchBox()->setText(QStringLiteral("<module>"));
        QVERIFY(chart->matchedBoxes() > 0);
        QCOMPARE(pixel(fillPoint(0)), searchedFill(scriptColor, true, true).rgb());
        panel.searchBox()->setText(QStringLiteral("no_such_function"));
        QCOMPARE(chart->matchedBoxes(), 0);
        QCOMPARE(pixel(fillPoint(0)), searchedFill(scriptColor, true, false).rgb());
        panel.searchBox()->clear();

        // Another thread selected: this one's lane goes.
        panel.controller()->setThreads({tid + 1});
        QTRY_VERIFY_WITH_TIMEOUT(!view->busy() && chart->chart()->lanes.empty(), 20000);
        panel.controller()->setThreads({tid});
        QTRY_VERIFY_WITH_TIMEOUT(!view->busy() && chart->chart()->lanes.size() == 1, 20000);
    }

    // In the window, while recording: the shown tab's chart follows the recording as it
    // grows (the timeline's span), and gets the last samples once it ends.
    void liveChartFollowsTheRecording() {
        const auto interpreters = gilscope::test::findInterpreters(8, 99);
        GILSCOPE_REQUIRE(!interpreters.isEmpty(), "no Python interpreter");
        gilscope::test::TargetProcess target(
            interpreters.last(),
            gilscope::test::targetScript(QStringLiteral("random_recursion.py")));
        QVERIFY2(target.start(), qPrintable(target.error()));
        qInfo("recording %s", qPrintable(interpreters.last().label));
        MainWindow window;
        window.prompts().showMessage = [](MainWindow::MessageKind, const QString&, const QString&) {
        };
        window.resize(1400, 900);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(
            (window.picker()->refreshNow(), window.picker()->selectPid(int(target.pid()))), 20000);
        window.recordAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.recording(), 20000);
        StackChartView* view = window.analysis()->stackChart();
        window.analysis()->tabs()->setCurrentWidget(view);
        QTRY_VERIFY_WITH_TIMEOUT(
            view->chart()->chart() && view->chart()->chart()->samplesInView > 0, 20000);
        const uint64_t firstEnd = view->chart()->chart()->endUs;
        const uint64_t firstSamples = view->chart()->chart()->samplesInView;
        QTRY_VERIFY_WITH_TIMEOUT(view->chart()->chart()->endUs > firstEnd + 500'000 &&
                                     view->chart()->chart()->samplesInView > firstSamples,
                                 30000);
        qInfo("the chart grew from %llu to %llu samples in view",
              static_cast<unsigned long long>(firstSamples),
              static_cast<unsigned long long>(view->chart()->chart()->samplesInView));
        // The timeline's span (its end may have grown since the chart was asked for).
        QCOMPARE(view->chart()->chart()->startUs, window.timeline()->viewStartUs());
        QVERIFY(view->chart()->chart()->endUs <= window.timeline()->viewEndUs());
        QVERIFY(
            !view->chart()
                 ->stackAt(view->chart()->chart()->lanes[0].threadId, view->chart()->width() / 2)
                 .isEmpty());
        window.stop();
        QTRY_VERIFY_WITH_TIMEOUT(!window.recording(), 20000);
        // The last chart covers every sample the model holds.
        const auto model = window.analysis()->controller()->model();
        QTRY_VERIFY_WITH_TIMEOUT(
            !view->busy() && view->chart()->chart()->samplesInView == model->sampleCount(), 30000);
        qInfo("after the end: %llu samples in view, all the model holds",
              static_cast<unsigned long long>(model->sampleCount()));
    }
};

QTEST_MAIN(TestStackChartTab)
#include "test_stack_chart.moc"
