// Issue 48: the window with a recording of millions of samples. While a view is being
// computed for a new request it says so, with a progress bar, and never shows an older
// answer as the current one; an opened file's tracks come before its model is complete,
// and the views say how much has been read until it is.
#include "core/analysis/call_transforms.h"
#include "tests/support/synthetic_bin.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/busy_overlay.h"
#include "ui/analysis/status_line.h"
#include "ui/main_window.h"
#include "ui/timeline_widget.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope;
using gilscope::ui::MainWindow;

class TestWindowScale : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString bin_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        bin_ = dir_.filePath("big.bin");
        QVERIFY(test::writeSyntheticBin(bin_.toStdString(), 3'000'000));
    }

    void aBigRecordingSaysWhatItComputes() {
        MainWindow window;
        window.prompts().showMessage = [](MainWindow::MessageKind, const QString&,
                                          const QString& text) { QFAIL(qPrintable(text)); };
        window.resize(1366, 768);
        window.show();
        ui::AnalysisPanel* panel = window.analysis();
        ui::AnalysisController* controller = panel->controller();
        bool loaded = false, tracksBeforeLoad = false;
        QStringList summariesWhileLoading;
        QObject::connect(&window, &MainWindow::recordingLoaded, [&](bool ok) {
            QVERIFY(ok);
            loaded = true;
        });
        QObject::connect(panel, &ui::AnalysisPanel::resultShown, [&] {
            if (!loaded) summariesWhileLoading << panel->summary()->text();
        });
        window.openRecordingFile(bin_);
        QTRY_VERIFY_WITH_TIMEOUT(!window.timeline()->snapshot().threads.empty() || loaded, 60000);
        tracksBeforeLoad = !loaded;
        QTRY_VERIFY_WITH_TIMEOUT(loaded, 120000);
        QTRY_VERIFY_WITH_TIMEOUT(controller->latest() && controller->latest()->snapshot &&
                                     controller->latest()->snapshot->finished &&
                                     !controller->busy(),
                                 60000);
        qInfo("tracks before the model was complete: %s; results shown while loading: %lld",
              tracksBeforeLoad ? "yes" : "no", qlonglong(summariesWhileLoading.size()));
        // A result of a partly read file never passes for the whole recording.
        for (const QString& s : summariesWhileLoading)
            QVERIFY2(s.startsWith("Reading the recording: ") || s.startsWith("Computing"),
                     qPrintable(s));
        QCOMPARE(controller->latest()->snapshot->recordedSamples, uint64_t(3'000'000));
        QVERIFY2(!panel->summary()->text().contains("Reading"),
                 qPrintable(panel->summary()->text()));

        // A new request: at once the summary says what is being computed, and the views
        // are covered (no delay here) until its answer is shown.
        ui::BusyOverlay* busy = panel->busyOverlay();
        busy->setDelayMs(0);
        controller->setThreads({1003});
        QVERIFY2(panel->summary()->text().startsWith("Computing: thread 1003"),
                 qPrintable(panel->summary()->text()));
        QVERIFY(busy->isVisible());
        QVERIFY(busy->text().contains("thread 1003"));
        QTRY_VERIFY_WITH_TIMEOUT(!busy->isVisible(), 60000);
        QCOMPARE(controller->latest()->generation, controller->generation());
        QVERIFY2(panel->summary()->text().startsWith("1 of 8 threads"),
                 qPrintable(panel->summary()->text()));

        // A request superseded before its answer: the older answer (if it comes) neither
        // uncovers the views nor speaks for the newer request.
        const uint64_t start = controller->latest()->snapshot->originUs;
        controller->setRange(start + 50'000, start + 150'000);
        controller->setState(StateFilter::HoldingGil);
        QVERIFY(busy->isVisible());
        QVERIFY(busy->text().contains("Holding GIL"));
        const auto covered = [&] {
            // While covered, the summary speaks of the newest request only.
            return busy->isVisible() ? panel->summary()->text().startsWith("Computing:") &&
                                           panel->summary()->text().contains("Holding GIL")
                                     : true;
        };
        QElapsedTimer waited;
        waited.start();
        while (busy->isVisible() && waited.elapsed() < 60000) {
            QVERIFY2(covered(), qPrintable(panel->summary()->text()));
            QTest::qWait(2);
        }
        QVERIFY(!busy->isVisible());
        QCOMPARE(controller->latest()->snapshot->filter.state, StateFilter::HoldingGil);
        QVERIFY(controller->latest()->snapshot->filter.hasRange);
        QVERIFY2(panel->summary()->text().contains("Holding GIL") &&
                     !panel->summary()->text().startsWith("Computing"),
                 qPrintable(panel->summary()->text()));

        // A transform too.
        const ProfileSnapshot& s = *controller->latest()->snapshot;
        controller->addTransform(
            CallTransform{TransformKind::MergeFunction, {s.functions[0].name, {}}, {}, {}});
        QVERIFY(busy->isVisible());
        QVERIFY2(busy->text().contains("Merge: "), qPrintable(busy->text()));
        QTRY_VERIFY_WITH_TIMEOUT(!busy->isVisible(), 60000);
    }
};

QTEST_MAIN(TestWindowScale)
#include "test_window_scale.moc"
