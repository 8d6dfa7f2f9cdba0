// The window's controllers without the window: the RecordingController attaches to a
// real Python process, records and stops; the FileFlow asks before the recording would
// be lost, saves it as .bin and runs what was asked for after the save, exports it,
// opens the .bin (the controller then shows the file) and refuses a damaged one. Their
// dialogs are answered through WindowPrompts, as the window's tests do.
#include "core/session/recording_file.h"
#include "tests/gui/gui_test_helpers.h"
#include "tests/support/ci_requirements.h"
#include "tests/support/python_interpreters.h"
#include "ui/file_flow.h"
#include "ui/recent_files.h"
#include "ui/recording_controller.h"
#include "ui/window_prompts.h"

#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using gilscope::test::TargetProcess;
using namespace gilscope::ui;

namespace {

// Prompts answered by the test, with what was asked written down.
struct Answers {
    WindowPrompts prompts;
    QList<QPair<MessageKind, QString>> messages;
    QStringList questions, exported;
    UnsavedChoice choice = UnsavedChoice::Cancel;
    QString savePath;
    Answers() {
        prompts.showMessage = [this](MessageKind kind, const QString&, const QString& text) {
            messages.append({kind, text});
        };
        prompts.askUnsaved = [this](const QString& text, bool) {
            questions.append(text);
            return choice;
        };
        prompts.askSavePath = [this](const QString&, const QString&, const QString&) {
            return savePath;
        };
        prompts.askAfterExport = [this](const QString& path) {
            exported.append(path);
            return ExportChoice::Close;
        };
        prompts.openUrl = [](const QUrl&) { return true; };
    }
};

} // namespace

class TestWindowControllers : public QObject {
    Q_OBJECT
private slots:
    void recordSettleSaveExportOpen() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        qInfo("interpreter: %s", qPrintable(all.first().label));
        TargetProcess target(all.first(), QStringLiteral("gil_contention.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        Answers a;
        RecordingController c(a.prompts);
        RecentFiles recent(nullptr);
        FileFlow files(
            c, &recent, a.prompts, [] { return gilscope::StateFilter::All; }, nullptr, nullptr);
        QSignalSpy started(&c, &RecordingController::started);
        QSignalSpy progressed(&c, &RecordingController::progressed);
        QSignalSpy ended(&c, &RecordingController::ended);
        c.attach(int(target.pid()), gilscope::SessionOptions{},
                 QStringLiteral("python3 -u /x/gil_contention.py"));
        QVERIFY(c.attaching());
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        QVERIFY(c.recording());
        QCOMPARE(c.process().scriptName, QStringLiteral("gil_contention"));
        QTRY_VERIFY_WITH_TIMEOUT(progressed.count() >= 2 && c.session()->stats().okTicks > 200,
                                 60000);
        QVERIFY(!files.canExport()); // not while it records

        // Cancel: the recording goes on and what was asked for does not run.
        int ran = 0;
        QVERIFY(!files.settleUnsaved([&] { ++ran; }));
        QVERIFY(c.recording());
        QCOMPARE(ran, 0);
        QCOMPARE(a.questions.size(), 1);
        QVERIFY(a.questions[0].contains(QStringLiteral("still being recorded")));

        // Save as .bin: the recording stops, the save runs, then what was asked for.
        a.choice = UnsavedChoice::SaveBin;
        a.savePath = dir.filePath(QStringLiteral("kept"));
        QSignalSpy saved(&files, &FileFlow::binSaved);
        QVERIFY(!files.settleUnsaved([&] { ++ran; }));
        QCOMPARE(ended.count(), 1);
        QVERIFY(!c.recording());
        QVERIFY2(c.end().status.contains(QStringLiteral("stopped")), qPrintable(c.end().status));
        QVERIFY(files.busy());
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 60000);
        QVERIFY2(saved[0][0].toBool(), qPrintable(saved[0][1].toString()));
        const QString bin = dir.filePath(QStringLiteral("kept.bin"));
        QCOMPARE(saved[0][1].toString(), bin);
        QCOMPARE(ran, 1);
        QVERIFY(!files.unsaved());
        QVERIFY(a.messages.isEmpty()); // no "saved" box: the save was a step on the way
        QCOMPARE(recent.files().value(0), QFileInfo(bin).absoluteFilePath());
        QVERIFY(files.settleUnsaved([&] { ++ran; })); // nothing left to lose: no question
        QCOMPARE(a.questions.size(), 2);

        // Export of the ended recording, named .json when the name has no suffix.
        a.savePath = dir.filePath(QStringLiteral("profile"));
        QSignalSpy exported(&files, &FileFlow::exportFinished);
        files.exportProfile();
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 60000);
        QVERIFY2(exported[0][0].toBool(), qPrintable(exported[0][1].toString()));
        const QString json = dir.filePath(QStringLiteral("profile.json"));
        QCOMPARE(a.exported, QStringList{json});
        QJsonObject profile;
        qint64 samples = 0;
        QString error;
        QVERIFY2(gilscope::test::readGeckoProfile(json, &profile, &samples, &error),
                 qPrintable(error));
        QVERIFY(samples > 200);

        // Open the .bin: the controller shows the file and lets the session go.
        QSignalSpy loaded(&files, &FileFlow::loaded);
        files.open(bin);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QVERIFY(loaded[0][0].toBool());
        QVERIFY(!c.session());
        QVERIFY(c.file());
        QVERIFY(files.canExport());
        QVERIFY(!files.canSaveBin());

        // A damaged file is refused with the reason; the opened one stays.
        const QString damaged = dir.filePath(QStringLiteral("damaged.bin"));
        QFile f(damaged);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        files.open(damaged);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        QVERIFY(!loaded[1][0].toBool());
        QCOMPARE(a.messages.size(), 1);
        QCOMPARE(a.messages[0].first, MessageKind::Error);
        QVERIFY2(a.messages[0].second.contains(QStringLiteral("damaged")),
                 qPrintable(a.messages[0].second));
        QCOMPARE(QString::fromStdString(c.file()->path().string()), bin);
        QCOMPARE(recent.files().size(), 1);
    }

    // The recording's end and a launched program's exit, in either order.
    void endStateSaysBothEnds() {
        RecordingEndState end;
        end.programExit = QStringLiteral("exit code 3");
        QVERIFY(end.describe().contains(QStringLiteral("the recording is finishing")));
        end.status = QStringLiteral("Recording of pid 7 stopped: it ended. 10 samples kept.");
        end.kept = QStringLiteral("10 samples kept.");
        end.pid = 7;
        QCOMPARE(end.describe(), end.status + QStringLiteral(" The program ended (exit code 3)."));
        end.targetExited = true;
        QCOMPARE(
            end.describe(),
            QStringLiteral(
                "Recording of pid 7 stopped: the program ended (exit code 3). 10 samples kept."));
        end.programExit.clear();
        QCOMPARE(end.describe(), end.status);
    }
};

QTEST_MAIN(TestWindowControllers)
#include "test_window_controllers.moc"
