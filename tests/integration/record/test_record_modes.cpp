// `--mode {wall,cpu,gil,exception}` of `gilscope attach` against real Python processes
// on every interpreter present, including the chroot's 3.14/3.15.
//
// The target is four_threads.py: four contenders spin (one holds the GIL and runs at a
// time), "sleeper" sleeps, "in-except" sleeps inside an except block, main waits on an
// Event. The sleeping threads never run and never hold the GIL, so the filtered modes
// must show none of their samples, while wall mode shows all of them.
#include "record_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/resource.h>

using namespace gilscope;
using namespace gilscope::test;

class TestRecordModes : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

    // Records `-a -d 1 --mode MODE` into a collapsed file and returns its stacks.
    static QMap<QString, qint64> record(const TargetProcess& target, const QString& mode,
                                        const QString& dir) {
        const QString out = QDir(dir).filePath(mode + ".txt");
        const RunResult r =
            runGilscope({"attach", QString::number(target.pid()), "-a", "-d", "1", "-r", "500",
                         "--rt-priority", "1", "--mode", mode, "-o", out});
        if (r.exitCode != 0) qWarning("%s", qPrintable(describe(r)));
        bool ok = false;
        auto stacks = readCollapsed(out, &ok);
        if (!ok) stacks.clear();
        return stacks;
    }

private slots:
    void initTestCase() {
        setpriority(PRIO_PROCESS, 0, -10); // the contenders must get CPU on a busy machine
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        printTestedInterpreters(all_);
    }

    void modesSampleOnlyMatchingThreads_data() { addInterpreterRows(all_); }
    void modesSampleOnlyMatchingThreads() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "four_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());

        const auto wall = record(target, "wall", dir.path());
        QVERIFY2(samplesIn(wall, "sleeper") > 50, "wall mode must see the sleeping thread");
        QVERIFY2(samplesIn(wall, "in_except") > 50, "wall mode must see the except thread");
        QVERIFY(samplesIn(wall, "contender") > 50);

        const auto cpu = record(target, "cpu", dir.path());
        QVERIFY2(samplesIn(cpu, "contender") > 50, "cpu mode must see the running contender");
        QCOMPARE(samplesIn(cpu, "sleeper"), 0);
        QCOMPARE(samplesIn(cpu, "in_except"), 0);

        const auto gil = record(target, "gil", dir.path());
        QVERIFY2(samplesIn(gil, "contender") > 50, "gil mode must see the GIL holder");
        QCOMPARE(samplesIn(gil, "sleeper"), 0);
        QCOMPARE(samplesIn(gil, "in_except"), 0);

        const auto exc = record(target, "exception", dir.path());
        QVERIFY2(samplesIn(exc, "in_except") > 50, "exception mode must see the except thread");
        QCOMPARE(samplesIn(exc, "sleeper"), 0);
        QCOMPARE(samplesIn(exc, "contender"), 0);
    }

    // The .bin header carries the mode as CPython writes it; `info` shows it.
    void binaryHeaderRecordsTheMode() {
        QVERIFY(!all_.isEmpty());
        TargetProcess target(all_.last(), "four_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        for (const QString mode : {"wall", "cpu", "gil", "exception"}) {
            const QString out = dir.filePath(mode + ".bin");
            const RunResult r = runGilscope({"attach", QString::number(target.pid()), "-a", "-d",
                                             "0.3", "--binary", "--mode", mode, "-o", out});
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            const RunResult info = runGilscope({"info", out});
            QVERIFY2(info.exitCode == 0, qPrintable(describe(info)));
            QVERIFY2(info.out.contains(QRegularExpression("Mode: +" + mode + "\\n")),
                     qPrintable(info.out));
        }
    }

    // gc_loop.py collects garbage most of the time: <GC> frames by default, none with --no-gc.
    void noGcDropsGcFrames_data() { addInterpreterRows(all_); }
    void noGcDropsGcFrames() {
        QFETCH(Interpreter, interpreter);
        const QString here = sourceDir() + QStringLiteral("/tests/integration/remote");
        TargetOptions options;
        options.bindDirs = QStringList{here};
        TargetProcess target(interpreter, here + "/gc_loop.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        for (const bool noGc : {false, true}) {
            const QString out = dir.filePath(noGc ? "nogc.txt" : "gc.txt");
            QStringList args{"attach", QString::number(target.pid()), "-d", "1", "-o", out};
            if (noGc) args << "--no-gc";
            const RunResult r = runGilscope(args);
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            bool ok = false;
            const auto stacks = readCollapsed(out, &ok);
            QVERIFY(ok);
            QVERIFY(samplesIn(stacks, "<module>") > 50);
            if (noGc)
                QCOMPARE(samplesIn(stacks, "<GC>"), 0);
            else
                QVERIFY2(samplesIn(stacks, "<GC>") > 10, "no <GC> frames without --no-gc");
        }
    }

    void badModeIsRefused() {
        const RunResult r = runGilscope({"attach", "1", "--mode", "idle"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("argument --mode: invalid choice: 'idle'"), qPrintable(r.err));
    }

    // --native: CPython's <native> frame wherever C code called into Python (below
    // <module>, and between outer() and the key() that sorted() calls), never at the leaf;
    // none without it; refused with the reason on 3.8-3.10, which do not mark the entries.
    void nativeFramesWhereCCallsPython_data() { addInterpreterRows(all_); }
    void nativeFramesWhereCCallsPython() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "native_calls.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("native.bin");
        const RunResult r = runGilscope({"attach", QString::number(target.pid()), "-d", "1",
                                         "--native", "--binary", "-o", out});
        if (interpreter.minor < 11) {
            QCOMPARE(r.exitCode, 6);
            QVERIFY2(r.err.contains("--native needs Python 3.11"), qPrintable(r.err));
            QVERIFY(!QFile::exists(out));
            return;
        }
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const RunResult info = runGilscope({"info", "--no-decode", out});
        QVERIFY2(info.out.contains("native"), qPrintable(info.out));
        const RunResult replay =
            runGilscope({"replay", "--collapsed", "-o", dir.filePath("n.txt"), out});
        QVERIFY2(replay.exitCode == 0, qPrintable(describe(replay)));
        bool ok = false;
        const auto stacks = readCollapsed(dir.filePath("n.txt"), &ok);
        QVERIFY(ok);
        const QString native = "<native> (~:0)";
        const QString keyDef =
            QStringLiteral(":%1)").arg(target.readyInfo().value("key_line").toInt());
        qint64 inKey = 0, unmarked = 0;
        for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
            QStringList names;
            for (const QString& f : it.key().split(';'))
                names << (f == native ? QStringLiteral("<native>") : f.section(" (", 0, 0));
            QVERIFY2(names.last() != "<native>", qPrintable(it.key()));
            if (!names.contains("key") || names.contains("<GC>")) continue;
            // 3.11 marks a frame as an eval-loop entry when it starts running: sampled
            // between its push and its first instruction (reported at its `def` line),
            // key() has no <native> yet.
            const QString leaf = it.key().section(';', -1);
            const bool notStarted =
                interpreter.minor == 11 && leaf.startsWith("key (") && leaf.endsWith(keyDef);
            if (notStarted && names.join(';') == "<native>;<module>;outer;key") continue;
            // key() runs ~10 µs, 500 times a sort, each time in the same frame slot: a read
            // that copies its frame while the next call re-initialises it (is_entry cleared
            // first) sees the old instruction without the mark. Rare; counted, not failed.
            if (interpreter.minor == 11 && names.join(';') == "<native>;<module>;outer;key") {
                unmarked += it.value();
                continue;
            }
            // key() under sleeper() (seen once on 3.11 in CI before the reader re-read the
            // stack's top after the chunk) is a torn read, and fails here.
            QCOMPARE(names.join(';'), QStringLiteral("<native>;<module>;outer;<native>;key"));
            inKey += it.value();
        }
        QVERIFY2(inKey > 20, qPrintable(QStringList(stacks.keys()).join('\n')));
        QVERIFY2(unmarked * 20 <= inKey, qPrintable(QStringList(stacks.keys()).join('\n')));

        const RunResult plain = runGilscope({"attach", QString::number(target.pid()), "-d", "0.3",
                                             "-o", dir.filePath("plain.txt")});
        QVERIFY2(plain.exitCode == 0, qPrintable(describe(plain)));
        const auto without = readCollapsed(dir.filePath("plain.txt"), &ok);
        QVERIFY(ok);
        for (auto it = without.cbegin(); it != without.cend(); ++it)
            QVERIFY2(!it.key().contains(native), qPrintable(it.key()));
    }

    // --blocking reads every thread stopped and leaves none stopped or traced afterwards.
    void blockingRecordsAndResumes_data() { addInterpreterRows(all_); }
    void blockingRecordsAndResumes() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "four_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString out = dir.filePath("blocking.txt");
        const RunResult r = runGilscope(
            {"attach", QString::number(target.pid()), "-a", "-d", "1", "--blocking", "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        bool ok = false;
        const auto stacks = readCollapsed(out, &ok);
        QVERIFY(ok);
        // Each stopped read holds every thread; a loaded machine makes stopping slow.
        QVERIFY2(samplesIn(stacks, "sleeper") >= 3, qPrintable(r.out));
        QVERIFY2(samplesIn(stacks, "contender") >= 3, qPrintable(r.out));
        QVERIFY2(nothingStopped(target.pid()), "a thread of the target was left stopped");
    }

    // Killing gilscope (SIGKILL) or Ctrl-C while it stops the target thousands of times a
    // second: the kernel detaches, and every thread runs on.
    void blockingNeverLeavesTheTargetStopped() {
        QVERIFY(!all_.isEmpty());
        TargetProcess target(all_.last(), "four_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        for (int round = 0; round < 6; ++round) {
            const bool kill9 = round % 2 == 0;
            const auto p =
                startGilscope({"attach", QString::number(target.pid()), "-a", "-r", "5khz",
                               "--blocking", "--realtime-stats", "-o", dir.filePath("b.txt")});
            QVERIFY(p);
            QString seen;
            QVERIFY2(waitForStdoutLine(
                         *p, [](const QString& l) { return l.startsWith("Real-time"); }, &seen),
                     qPrintable(seen));
            ::kill(static_cast<pid_t>(p->processId()), kill9 ? SIGKILL : SIGINT);
            QVERIFY(p->waitForFinished(kRunTimeoutMs));
            if (!kill9) QCOMPARE(p->exitCode(), 0);
            QVERIFY2(nothingStopped(target.pid()),
                     kill9 ? "stopped after gilscope was killed" : "stopped after Ctrl-C");
        }
    }
};

QTEST_GUILESS_MAIN(TestRecordModes)
#include "test_record_modes.moc"
