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

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

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
        const RunResult r = runGilscope({"attach", QString::number(target.pid()), "-a", "-d", "1",
                                         "-r", "500", "--mode", mode, "-o", out});
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
        const QString here = QStringLiteral(GILSCOPE_SOURCE_DIR "/tests/integration/remote");
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
};

QTEST_GUILESS_MAIN(TestRecordModes)
#include "test_record_modes.moc"
