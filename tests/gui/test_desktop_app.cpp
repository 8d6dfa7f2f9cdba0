// The window as a desktop application: settings restored on the next start
// (through a temporary QSettings file), recent files, `gilscope FILE.bin` and
// drag and drop open a recording, a recording is never lost without a question
// (Record over it, quit while recording), Ctrl+Shift+S saves, the first size
// fits the screen, the About text.
#include "core/sample/thread_status.h"
#include "core/tach/tach_reader.h"
#include "net/profile_server.h"
#include "tests/gui/gui_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/shared_dir.h"
#include "ui/live_figures.h"
#include "ui/main_window.h"
#include "ui/process_picker.h"
#include "ui/record_options_bar.h"
#include "ui/run_gui.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDropEvent>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using gilscope::test::TargetProcess;
using gilscope::ui::MainWindow;

namespace {

struct Harness {
    MainWindow window;
    QStringList messages, questions, suggestions;
    QList<QUrl> opened;
    MainWindow::ExportChoice afterExport = MainWindow::ExportChoice::Close;
    QString savePath;
    MainWindow::UnsavedChoice answer = MainWindow::UnsavedChoice::Cancel;
    explicit Harness(QSettings* settings = nullptr) : window(settings) {
        window.prompts().showMessage = [this](MainWindow::MessageKind, const QString&,
                                              const QString& m) { messages.append(m); };
        window.prompts().askSavePath = [this](const QString&, const QString& suggested,
                                              const QString&) {
            suggestions.append(suggested);
            return savePath;
        };
        window.prompts().askAfterExport = [this](const QString&) { return afterExport; };
        window.prompts().openUrl = [this](const QUrl& url) {
            opened.append(url);
            return true;
        };
        window.prompts().askOpenPath = [] { return QString(); };
        window.prompts().askUnsaved = [this](const QString& text, bool) {
            questions.append(text);
            return answer;
        };
        window.show();
    }
    bool load(const QString& path) {
        QSignalSpy loaded(&window, &MainWindow::recordingLoaded);
        window.openRecordingFile(path);
        return loaded.wait(60000) && loaded.at(0).at(0).toBool();
    }
};

} // namespace

class TestDesktopApp : public QObject {
    Q_OBJECT
private:
    // Records target for a moment and stops: the window then holds an unsaved
    // recording.
    void recordAndStop(Harness& h, qint64 pid) {
        QTRY_VERIFY_WITH_TIMEOUT(
            (h.window.picker()->refreshNow(), h.window.picker()->selectPid(int(pid))), 60000);
        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        h.window.record();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(h.window.figures()->stats().okTicks > 50, 60000);
        h.window.stop();
        QVERIFY(h.window.hasUnsavedRecording());
    }

private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void settingsRoundTrip() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("gilscope.conf"));
        QList<int> splitterSizes;
        QSize chosenSize;
        {
            QSettings settings(file, QSettings::IniFormat);
            Harness h(&settings);
            QCOMPARE(h.window.rateBox()->currentText(),
                     QStringLiteral("1khz")); // defaults
            h.window.rateBox()->setCurrentText(QStringLiteral("5khz"));
            h.window.recordOptions()->threadsBox()->setCurrentIndex(1);
            h.window.recordOptions()->modeBox()->setCurrentIndex(3);
            h.window.recordOptions()->opcodesBox()->setChecked(true);
            h.window.recordOptions()->gcBox()->setChecked(false);
            h.window.recordOptions()->durationBox()->setValue(30);
            h.window.findChild<QLineEdit*>(QStringLiteral("processFilter"))
                ->setText(QStringLiteral("worker"));
            const QSize initial = h.window.size();
            h.window.resize(700, 520); // at least the window's minimum size, which the docks set
            chosenSize = h.window.size();
            QVERIFY(chosenSize != initial);
            // The track area the user dragged (on the recording page) is remembered.
            h.window.showRecordingView();
            QSplitterHandle* handle = h.window.splitter()->handle(1);
            QTRY_VERIFY(handle->isVisible() && h.window.splitter()->sizes().value(0) > 0);
            QTest::mousePress(handle, Qt::LeftButton, {}, handle->rect().center());
            QTest::mouseMove(handle, handle->rect().center() + QPoint(0, 40));
            QTest::mouseRelease(handle, Qt::LeftButton, {},
                                handle->rect().center() + QPoint(0, 40));
            splitterSizes = h.window.splitter()->sizes().mid(0, 2); // tracks, analysis
            h.savePath = dir.filePath(QStringLiteral("out/x.json"));
            QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("out")));
            h.window.close(); // saves
        }
        QSettings settings(file, QSettings::IniFormat);
        Harness h(&settings);
        QCOMPARE(h.window.rateBox()->currentText(), QStringLiteral("5khz"));
        QCOMPARE(h.window.recordOptions()->threadsBox()->currentIndex(), 1);
        QCOMPARE(h.window.recordOptions()->modeBox()->currentIndex(), 3);
        QVERIFY(h.window.recordOptions()->opcodesBox()->isChecked());
        QVERIFY(!h.window.recordOptions()->gcBox()->isChecked());
        QCOMPARE(h.window.recordOptions()->durationBox()->value(), 30);
        const auto chosen = h.window.recordOptions()->options();
        QVERIFY(chosen);
        QCOMPARE(chosen->intervalUs, uint64_t(200));
        QVERIFY(!chosen->read.allThreads && chosen->read.opcodes && !chosen->read.gc);
        QCOMPARE(chosen->durationSec, 30.0);
        QCOMPARE(h.window.findChild<QLineEdit*>(QStringLiteral("processFilter"))->text(),
                 QStringLiteral("worker"));
        QCOMPARE(h.window.size(), chosenSize);
        h.window.showRecordingView();
        QTRY_COMPARE(h.window.splitter()->sizes().mid(0, 2), splitterSizes);
    }

    // Opened files join the recent list (newest first), which the next start
    // restores; `gilscope FILE.bin` and a dropped .bin open the file.
    void commandLineDropAndRecentFiles() {
        GILSCOPE_REQUIRE_SHARED();
        const QString real = gilscope::test::fixturePath(QStringLiteral("tach/real-315.bin"));
        const QString tiny = gilscope::test::fixturePath(QStringLiteral("tach/tiny.bin"));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("gilscope.conf"));
        {
            QSettings settings(file, QSettings::IniFormat);
            Harness h(&settings);
            QSignalSpy loaded(&h.window, &MainWindow::recordingLoaded);
            gilscope::ui::openCommandLineFiles(
                h.window, {QStringLiteral("gilscope"), QStringLiteral("-style=fusion"), real});
            QVERIFY(loaded.wait(60000));
            QVERIFY2(loaded.at(0).at(0).toBool(), qPrintable(h.messages.join('\n')));
            QVERIFY(h.window.windowTitle().contains(QStringLiteral("real-315.bin")));

            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(tiny)});
            QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
            QCoreApplication::sendEvent(&h.window, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, {});
            QCoreApplication::sendEvent(&h.window, &drop);
            QVERIFY(loaded.wait(60000));
            QVERIFY2(loaded.at(1).at(0).toBool(), qPrintable(h.messages.join('\n')));
            QVERIFY(h.window.windowTitle().contains(QStringLiteral("tiny.bin")));
            QCOMPARE(h.window.recentFiles(), (QStringList{tiny, real}));
        }
        QSettings settings(file, QSettings::IniFormat);
        Harness h(&settings);
        QCOMPARE(h.window.recentFiles(), (QStringList{tiny, real}));
        QStringList shown;
        for (QAction* a : h.window.recentMenu()->actions())
            if (a->data().isValid()) shown << a->data().toString();
        QCOMPARE(shown, (QStringList{tiny, real}));
    }

    // Record over an unsaved recording asks first: Cancel keeps it and records
    // nothing, Save as .bin saves it and then records.
    void recordOverUnsavedRecordingAsks() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.last(), QStringLiteral("three_deep.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        recordAndStop(h, target.pid());
        if (QTest::currentTestFailed()) return;

        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        h.answer = MainWindow::UnsavedChoice::Cancel;
        h.window.record();
        QCOMPARE(h.questions.size(), 1);
        QVERIFY(h.questions[0].contains(QString::number(target.pid())));
        QVERIFY(!h.window.attaching());
        QVERIFY(h.window.hasUnsavedRecording());

        QTemporaryDir dir;
        h.savePath = dir.filePath(QStringLiteral("kept.bin"));
        h.answer = MainWindow::UnsavedChoice::SaveBin;
        QSignalSpy saved(&h.window, &MainWindow::binSaved);
        h.window.record();
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 60000);
        QVERIFY(saved.at(0).at(0).toBool());
        QVERIFY(QFileInfo(h.savePath).size() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000); // then it records
        QCOMPARE(h.questions.size(), 2);
        h.window.stop();
    }

    // Quitting while recording asks; Cancel keeps recording, Discard quits.
    void quitWhileRecordingAsks() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.first(), QStringLiteral("three_deep.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        QTRY_VERIFY_WITH_TIMEOUT(
            (h.window.picker()->refreshNow(), h.window.picker()->selectPid(int(target.pid()))),
            20000);
        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        h.window.record();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        h.answer = MainWindow::UnsavedChoice::Cancel;
        QVERIFY(!h.window.close());
        QCOMPARE(h.questions.size(), 1);
        QVERIFY(h.window.recording());
        h.answer = MainWindow::UnsavedChoice::Discard;
        QVERIFY(h.window.close());
        QVERIFY(!h.window.recording());
    }

    // Ctrl+Shift+S saves a finished recording (QKeySequence::SaveAs is empty
    // offscreen).
    void ctrlShiftSSavesTheRecording() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.last(), QStringLiteral("three_deep.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        Harness h;
        h.window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&h.window));
        recordAndStop(h, target.pid());
        if (QTest::currentTestFailed()) return;
        QTemporaryDir dir;
        h.savePath = dir.filePath(QStringLiteral("shortcut.bin"));
        QSignalSpy saved(&h.window, &MainWindow::binSaved);
        QTest::keyClick(&h.window, Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 60000);
        QVERIFY(saved.at(0).at(0).toBool());
        QVERIFY(!h.window.hasUnsavedRecording());
    }

    // The options bar's choices reach the recording: gil mode keeps only samples
    // of threads holding the GIL (the waiting main thread's go, though the live
    // timeline shows it), a duration ends the recording by itself, and "main
    // thread only" reads one thread. The saved .bin says which mode and features
    // it was recorded with.
    void recordingOptionsReachTheRecording() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.last(), QStringLiteral("gil_contention.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const qint64 mainTid = target.readyInfo()["threads"].toObject()["main"].toInteger();
        Harness h;
        auto* options = h.window.recordOptions();
        options->modeBox()->setCurrentIndex(
            options->modeBox()->findData(int(gilscope::ProfilingMode::Gil)));
        options->durationBox()->setValue(1);
        QTRY_VERIFY_WITH_TIMEOUT(
            (h.window.picker()->refreshNow(), h.window.picker()->selectPid(int(target.pid()))),
            20000);
        QSignalSpy ended(&h.window, &MainWindow::recordingEnded);
        h.window.record();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000); // nobody pressed Stop
        QVERIFY2(h.window.statusText().contains(QStringLiteral("duration")),
                 qPrintable(h.window.statusText()));
        QVERIFY(h.window.timeline()->snapshot().threads.size() >= 3);

        QTemporaryDir dir;
        h.savePath = dir.filePath(QStringLiteral("gil.bin"));
        QSignalSpy saved(&h.window, &MainWindow::binSaved);
        h.window.saveRecordingAsBin();
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 60000);
        QVERIFY(saved.at(0).at(0).toBool());
        auto reader = gilscope::TachReader::open(h.savePath.toStdString());
        QVERIFY(reader);
        QCOMPARE(reader->info().mode, std::optional(int(gilscope::ProfilingMode::Gil)));
        struct Statuses : gilscope::SampleSink {
            uint64_t total = 0, withGil = 0, fromMain = 0;
            qint64 mainTid = 0;
            void addBatch(const gilscope::SampleBatch& b) override {
                total += b.timestampsUs.size();
                if (b.status & gilscope::ThreadStatus::HasGil) withGil += b.timestampsUs.size();
                if (qint64(b.threadId) == mainTid) fromMain += b.timestampsUs.size();
            }
        } statuses;
        statuses.mainTid = mainTid;
        QVERIFY(reader->replay(statuses));
        QVERIFY(statuses.total > 0);
        QCOMPARE(statuses.withGil, statuses.total);
        QCOMPARE(statuses.fromMain, uint64_t(0)); // it only waits

        // Main thread only, wall mode: one thread is read.
        options->threadsBox()->setCurrentIndex(1);
        options->modeBox()->setCurrentIndex(
            options->modeBox()->findData(int(gilscope::ProfilingMode::Wall)));
        h.answer = MainWindow::UnsavedChoice::Discard;
        h.window.record();
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 2, 60000);
        const auto snapshot = h.window.timeline()->snapshot();
        QCOMPARE(snapshot.threads.size(), size_t(1));
        QVERIFY(snapshot.threads.front().mainThread);
    }

    // Export names the file after what was recorded, in the last folder used;
    // then Open in Firefox Profiler serves it once to the browser (the URL the
    // window opens leads to exactly the exported bytes, for the configured
    // profiler's origin), and Copy path puts the path on the clipboard.
    void exportThenOpenInFirefoxProfiler() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.last(), QStringLiteral("three_deep.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("s.conf")), QSettings::IniFormat);
        Harness h(&settings);
        h.window.setProfilerAddress(QStringLiteral("https://profiler.example.org/"));
        recordAndStop(h, target.pid());
        if (QTest::currentTestFailed()) return;

        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("exports")));
        h.savePath = dir.filePath(QStringLiteral("exports/first.json"));
        h.afterExport = MainWindow::ExportChoice::OpenInProfiler;
        QSignalSpy done(&h.window, &MainWindow::exportFinished);
        h.window.exportProfile();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QVERIFY(done.at(0).at(0).toBool());
        static const QRegularExpression name(
            QStringLiteral("^three_deep_%1_\\d{8}-\\d{6}\\.json$").arg(target.pid()));
        QVERIFY2(name.match(QFileInfo(h.suggestions.last()).fileName()).hasMatch(),
                 qPrintable(h.suggestions.last()));
        QVERIFY(!h.window.hasUnsavedRecording());

        QCOMPARE(h.opened.size(), 1);
        const QString opened = h.opened[0].toString(QUrl::FullyEncoded);
        const QString prefix = QStringLiteral("https://profiler.example.org/from-url/");
        QVERIFY2(opened.startsWith(prefix), qPrintable(opened));
        const QUrl served(QUrl::fromPercentEncoding(opened.mid(prefix.size()).toLatin1()));
        QCOMPARE(served.host(), QStringLiteral("127.0.0.1"));
        QNetworkAccessManager nam;
        QNetworkReply* reply = nam.get(QNetworkRequest(served));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY(finished.wait(30000));
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QCOMPARE(reply->rawHeader("Access-Control-Allow-Origin"),
                 QByteArray("https://profiler.example.org"));
        QFile file(h.savePath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(reply->readAll(), file.readAll());
        delete reply;
        QTRY_VERIFY_WITH_TIMEOUT(!h.window.profileServer()->serving(), 60000);

        // The next export starts in the folder of the last one; Copy path.
        h.savePath = dir.filePath(QStringLiteral("exports/second.json"));
        h.afterExport = MainWindow::ExportChoice::CopyPath;
        h.window.exportProfile();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 60000);
        QCOMPARE(QFileInfo(h.suggestions.last()).absolutePath(),
                 QFileInfo(dir.filePath(QStringLiteral("exports"))).absoluteFilePath());
        QCOMPARE(QGuiApplication::clipboard()->text(), QFileInfo(h.savePath).absoluteFilePath());
    }

    void windowFitsTheScreenAndSaysThingsOnce() {
        Harness h;
        const QRect free = QGuiApplication::primaryScreen()->availableGeometry();
        QVERIFY(h.window.width() <= free.width());
        QVERIFY(h.window.height() <= free.height());
        // The status label is not repeated word for word in the status bar.
        QVERIFY(!h.window.statusText().isEmpty());
        QVERIFY(h.window.statusBar()->currentMessage() != h.window.statusText());
        const QString about = MainWindow::aboutText();
        QVERIFY(about.contains(QStringLiteral(GILSCOPE_VERSION)));
        QVERIFY(about.contains(QString::fromLatin1(qVersion())));
        QVERIFY(about.contains(QStringLiteral("3.8 to 3.15")));
        QVERIFY(about.contains(QStringLiteral("Licence")));
        QVERIFY(!h.window.windowIcon().pixmap(32, 32).isNull()); // the SVG renders
    }
};

QTEST_MAIN(TestDesktopApp)
#include "test_desktop_app.moc"
