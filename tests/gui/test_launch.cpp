// Launch script…: the dialog's choices (interpreter, script, arguments, working
// directory, environment) start the program, which is recorded from its first line
// (its first function, which runs half a second from the start, is in the recording),
// its output reaches the pane, and its exit code and a signal that kills it are shown.
#include "core/tach/tach_reader.h"
#include "tests/support/python_interpreters.h"
#include "ui/launch_dialog.h"
#include "ui/launch_job.h"
#include "ui/main_window.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using gilscope::test::Interpreter;
using gilscope::ui::LaunchDialog;
using gilscope::ui::LaunchRequest;
using gilscope::ui::MainWindow;

namespace {

constexpr char kScript[] = R"PY(import os, sys, time

def first_line_work():
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:
        pass

first_line_work()
print("hello", os.environ.get("GILSCOPE_TEST_VAR"), sys.argv[1:], os.getcwd(), flush=True)

def later_work():
    end = time.perf_counter() + float(sys.argv[1])
    while time.perf_counter() < end:
        pass

later_work()
sys.exit(int(sys.argv[2]))
)PY";

struct Harness {
    MainWindow window;
    QStringList messages;
    std::optional<LaunchRequest> next;
    QString savePath;
    Harness() {
        window.prompts().showMessage = [this](MainWindow::MessageKind, const QString&,
                                              const QString& m) { messages.append(m); };
        window.prompts().askLaunch = [this] { return next; };
        window.prompts().askSavePath = [this](const QString&, const QString&, const QString&) {
            return savePath;
        };
        window.prompts().askUnsaved = [](const QString&, bool) {
            return MainWindow::UnsavedChoice::Discard;
        };
        window.show();
    }
};

// Function names of every frame in a .bin recording.
std::set<std::string> functionsIn(const QString& path) {
    struct Names : gilscope::SampleSink {
        const gilscope::FrameRegistry* registry = nullptr;
        std::set<std::string> names;
        void begin(const gilscope::FrameRegistry& r, const gilscope::RecordingInfo&) override {
            registry = &r;
        }
        void addBatch(const gilscope::SampleBatch& b) override {
            for (auto id : b.frames)
                names.insert(registry->string(registry->frame(id).funcname));
        }
    } names;
    auto reader = gilscope::TachReader::open(path.toStdString());
    if (!reader || !reader->replay(names)) return {};
    return names.names;
}

} // namespace

class TestLaunch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void launchRecordsFromTheFirstLineAndShowsTheExitCode_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters(8, 13));
    }
    void launchRecordsFromTheFirstLineAndShowsTheExitCode() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("first_line.py"));
        {
            QFile f(script);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kScript);
        }
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("work dir")));
        const QString workDir = dir.filePath(QStringLiteral("work dir"));

        // Filled as a user would, through the dialog.
        LaunchDialog dialog;
        LaunchRequest wanted;
        wanted.interpreter = interpreter.executable;
        wanted.target = script;
        wanted.arguments = {QStringLiteral("1"), QStringLiteral("3")};
        wanted.workDir = workDir;
        wanted.environment = {QStringLiteral("GILSCOPE_TEST_VAR=forty two")};
        dialog.setRequest(wanted);
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        const LaunchRequest request = dialog.request();
        QCOMPARE(request.commandLine(), wanted.commandLine());

        Harness h;
        h.next = request;
        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        QSignalSpy ended(&h.window, &MainWindow::recordingEnded);
        QSignalSpy exited(&h.window, &MainWindow::programExited);
        h.window.launchAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        QCOMPARE(exited.at(0).at(0).toString(), QStringLiteral("exit code 3"));
        // The status line and the output pane say how it ended.
        QVERIFY2(h.window.statusText().contains(QStringLiteral("exit code 3")),
                 qPrintable(h.window.statusText()));
        const QString output = h.window.outputPane()->toPlainText();
        QVERIFY2(output.contains(QStringLiteral("[exit code 3]")), qPrintable(output));
        QVERIFY2(output.contains(QStringLiteral("hello forty two ['1', '3'] ") + workDir),
                 qPrintable(output));
        QVERIFY(output.contains(QStringLiteral("[exit code 3]")));
        QVERIFY2(h.messages.isEmpty(), qPrintable(h.messages.join('\n')));

        h.savePath = dir.filePath(QStringLiteral("launched.bin"));
        QSignalSpy saved(&h.window, &MainWindow::binSaved);
        h.window.saveRecordingAsBin();
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 60000);
        QVERIFY(saved.at(0).at(0).toBool());
        const auto names = functionsIn(h.savePath);
        QVERIFY2(names.count("first_line_work"), "the first function was missed");
        QVERIFY(names.count("later_work"));
    }

    // The recording's end (the sampler sees the target gone on its next tick) and the
    // program's exit (the window reaps it) come in either order; the final status says
    // both. At 2 Hz the window reaps the program long before the sampler's next tick;
    // at 10 kHz the sampler usually notices first.
    void statusSaysBothEndsInEitherOrder_data() {
        QTest::addColumn<QString>("rate");
        QTest::newRow("sampler notices last") << QStringLiteral("2");
        QTest::newRow("sampler notices first") << QStringLiteral("10khz");
    }
    void statusSaysBothEndsInEitherOrder() {
        QFETCH(QString, rate);
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("exits.py"));
        {
            QFile f(script);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kScript);
        }
        Harness h;
        h.window.rateBox()->setCurrentText(rate);
        LaunchRequest r;
        r.interpreter = all.last().executable;
        r.target = script;
        r.arguments = {QStringLiteral("0.1"), QStringLiteral("3")};
        QSignalSpy ended(&h.window, &MainWindow::recordingEnded);
        QSignalSpy exited(&h.window, &MainWindow::programExited);
        h.window.launch(r);
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(ended.count(), 1, 60000);
        const QString status = h.window.statusText();
        QVERIFY2(status.contains(QStringLiteral("stopped: the program ended (exit code 3)")),
                 qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("samples over")), qPrintable(status));
        QVERIFY2(h.messages.isEmpty(), qPrintable(h.messages.join('\n')));
    }

    // Stop ends a launched program, as Ctrl-C ends `gilscope run`'s: the signal shows.
    void stopEndsTheProgramAndSaysHow() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("long.py"));
        {
            QFile f(script);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kScript);
        }
        Harness h;
        LaunchRequest r;
        r.interpreter = all.last().executable;
        r.target = script;
        r.arguments = {QStringLiteral("600"), QStringLiteral("0")};
        QSignalSpy started(&h.window, &MainWindow::recordingStarted);
        QSignalSpy exited(&h.window, &MainWindow::programExited);
        h.window.launch(r);
        QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, 60000);
        h.window.stop();
        QTRY_COMPARE_WITH_TIMEOUT(exited.count(), 1, 60000);
        QCOMPARE(exited.at(0).at(0).toString(), QStringLiteral("killed by signal 15 (SIGTERM)"));
        const QString status = h.window.statusText();
        QVERIFY2(status.contains(QStringLiteral("stopped.")) &&
                     status.contains(QStringLiteral("The program ended (killed by signal 15")),
                 qPrintable(status));
    }

    // Item 15: a start while an earlier program is still being attached supersedes it
    // (the attach is a JobRunner job): one launched(), for the last program. Before,
    // LaunchJob's own watcher was overwritten: the first attach's end waited for the
    // last one's result, and the second's end then read a null watcher (a crash).
    void secondStartSupersedesTheFirst() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("long.py"));
        {
            QFile f(script);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(kScript);
        }
        LaunchRequest r;
        r.interpreter = all.last().executable;
        r.target = script;
        r.arguments = {QStringLiteral("600"), QStringLiteral("0")};
        gilscope::ui::LaunchJob job;
        QSignalSpy launched(&job, &gilscope::ui::LaunchJob::launched);
        QSignalSpy failed(&job, &gilscope::ui::LaunchJob::failed);
        // Three starts in a row: two superseded attaches still end after the last start.
        std::set<int> pids;
        for (int i = 0; i < 3; ++i) {
            job.start(r, {});
            QVERIFY(job.child());
            pids.insert(job.child()->pid());
        }
        const int last = job.child()->pid();
        QCOMPARE(pids.size(), size_t{3});
        QTRY_COMPARE_WITH_TIMEOUT(launched.count(), 1, 60000);
        QCOMPARE(launched.at(0).at(1).toInt(), last);
        QVERIFY(!job.busy());
        // The superseded attach ends too (its program was terminated): nothing more is
        // said about it, and nothing reads a watcher that is gone.
        QTest::qWait(1000);
        QCOMPARE(launched.count(), 1);
        QCOMPARE(failed.count(), 0);
        launched.clear(); // the session goes before the job's program
    }

    // A script that does not exist is refused in the dialog; a program that fails
    // before Python starts says so with its exit code.
    void badLaunchesAreExplained() {
        const auto all = gilscope::test::findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        LaunchDialog dialog;
        LaunchRequest r;
        r.interpreter = all.first().executable;
        r.target = QStringLiteral("/nonexistent/app.py");
        dialog.setRequest(r);
        QVERIFY(dialog.problem().contains(QStringLiteral("/nonexistent/app.py")));

        Harness h;
        r.interpreter = QStringLiteral("/bin/false");
        r.target = QStringLiteral("x");
        QSignalSpy failed(&h.window, &MainWindow::launchFailed);
        h.window.launch(r);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
        QVERIFY2(h.window.statusText().contains(QStringLiteral("exit code 1")),
                 qPrintable(h.window.statusText()));
        QVERIFY(!h.window.recording());
        QVERIFY(h.window.launchAction()->isEnabled());
    }
};

QTEST_MAIN(TestLaunch)
#include "test_launch.moc"
