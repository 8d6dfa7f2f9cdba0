// Free-threaded 3.13t checked against the programs' own timing on real interpreters: the
// per-thread shares of four threads at once (issue 37), how many threads ran Python at
// once (3.13t and 3.13 with its GIL) and the stop-the-world pauses of a thread calling
// gc.collect() in a loop (issue 49). Accuracy checks, run
// alone (RUN_SERIAL): another test's load takes CPUs from the targets, and a thread
// waiting for a CPU looks, to the kernel and to the program, like one that runs.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace gilscope::test;

namespace {

constexpr double kMaxShareErrorPoints = 2.0;

QList<Interpreter> withGilContrast() {
    QList<Interpreter> rows = findFreeThreadedInterpreters();
    for (const Interpreter& in : findInterpreters(13, 13))
        if (in.label.endsWith(QStringLiteral("(pyenv)"))) rows.append(in);
    return rows;
}

// Records the gated target from its gate to its end, every thread in "all" mode at 1 kHz,
// into dir/NAME; *error says why not.
QString recordGated(const QTemporaryDir& dir, const TargetProcess& target, const QString& name,
                    QString* error) {
    const QString bin = dir.filePath(name);
    const RunResult r = runGatedGilscope({"attach", "-a", "--mode", "all", "-r", "1khz", "--binary",
                                          "-o", bin, QString::number(target.pid())},
                                         dir.path(), gatePath(dir));
    if (r.exitCode != 0) *error = describe(r);
    return bin;
}

} // namespace

class TestFreeThreadedScaling : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        const QList<Interpreter> ft = findFreeThreadedInterpreters();
        printTestedInterpreters(withGilContrast());
        GILSCOPE_REQUIRE(!ft.isEmpty(),
                         "no free-threaded Python 3.13t: scripts/setup-python-chroot.sh builds it "
                         "from Debian's python3.13 source");
    }

    // Issue 37: four named threads running Python at once, each timing its two functions:
    // the per-thread shares within 2 points of the truth, and every worker on a CPU in nearly
    // every sample without a GIL (under 3.13's GIL, the three without it sleep on it).
    void parallelThreads_data() { addInterpreterRows(withGilContrast()); }
    void parallelThreads() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetProcess target(interpreter, "parallel_workers.py", gatedTarget(dir, {"3"}));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QCOMPARE(target.readyInfo()["free_threaded"].toBool(), interpreter.freeThreaded);
        const QJsonObject ids = target.readyInfo()["threads"].toObject();
        QCOMPARE(ids.size(), 4);

        QString error;
        const QString bin = recordGated(dir, target, "out.bin", &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto timed = target.readTimedJson("TIMES ");
        QVERIFY2(timed, qPrintable(target.error()));
        const QJsonObject& truth = *timed;

        const QJsonObject all = reportJson(bin, {}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // Names: every worker under its own name and native id.
        QMap<qint64, QString> names;
        for (const QJsonValue& t : all["all_threads"].toArray())
            names[t["thread_id"].toInteger()] = t["name"].toString();
        double onCpuShare = 0, worstPoints = 0;
        QString rows;
        for (auto it = ids.begin(); it != ids.end(); ++it) {
            const qint64 tid = it.value().toInteger();
            QVERIFY2(names.contains(tid), qPrintable(it.key() + " was never sampled"));
            QCOMPARE(names[tid], it.key());
            const QJsonObject thread = reportJson(bin, {"--thread", QString::number(tid)}, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            const QJsonObject cpu =
                reportJson(bin, {"--thread", QString::number(tid), "--mode", "cpu"}, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            // Of the samples that show one of the two functions (not the wait for the gate).
            const double calls = rowTotal(thread, "worker_calls"),
                         loop = rowTotal(thread, "worker_loop");
            QVERIFY2(calls + loop >= 1000, qPrintable(QString::number(calls + loop)));
            const QJsonObject spent = truth["threads"][it.key()].toObject();
            const double truthCalls =
                100 * spent["worker_calls"].toDouble() /
                (spent["worker_calls"].toDouble() + spent["worker_loop"].toDouble());
            const double measured = 100 * calls / std::max(1.0, calls + loop);
            worstPoints = std::max(worstPoints, std::abs(measured - truthCalls));
            // Of the same samples, those on a CPU (running, or runnable: wanting one).
            const double onCpu = rowTotal(cpu, "worker_calls") + rowTotal(cpu, "worker_loop");
            onCpuShare += onCpu / std::max(1.0, calls + loop) / ids.size();
            rows += QStringLiteral(" %1 %2->%3")
                        .arg(it.key())
                        .arg(truthCalls, 0, 'f', 1)
                        .arg(measured, 0, 'f', 1);
        }
        const double parallel = truth["cpu"].toDouble() / truth["wall"].toDouble();
        qInfo("%s: workers on CPU in %.1f%% of their samples (the process used %.2f CPUs); "
              "worker_calls shares, worst %.2f points:%s",
              qPrintable(interpreter.label), 100 * onCpuShare, parallel, worstPoints,
              qPrintable(rows));
        QVERIFY2(worstPoints <= kMaxShareErrorPoints, qPrintable(rows));
        if (interpreter.freeThreaded) {
            // Nothing ever waits for them: a busy thread is running or runnable.
            QVERIFY2(onCpuShare >= 0.95, qPrintable(QString::number(onCpuShare)));
        } else {
            // Under the GIL, the three that do not hold it sleep on it.
            QVERIFY2(onCpuShare <= 0.75, qPrintable(QString::number(onCpuShare)));
        }
    }

    // Issue 49: parallelism. Four independent busy threads run as many at a time as there
    // are CPUs on a free-threaded build, and one at a time under a GIL, though all four
    // want to.
    void parallelismTrack_data() { addInterpreterRows(withGilContrast()); }
    void parallelismTrack() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Busy from the start (no gate): two seconds recorded inside its three.
        TargetOptions options;
        options.args = {"busy", "3"};
        options.bindDirs = {dir.path()};
        TargetProcess target(interpreter, "ft_scaling.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const int cpus = target.readyInfo()["cpus"].toInt();
        const QString bin = dir.filePath("busy.bin");
        const RunResult r = runGilscope({"attach", "-a", "--mode", "all", "-r", "1khz", "-d", "2",
                                         "--binary", "-o", bin, QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const auto timed = target.readTimedJson("TIMES ");
        QVERIFY2(timed, qPrintable(target.error()));
        const double used = (*timed)["cpu"].toDouble() / (*timed)["wall"].toDouble();
        const RunResult rep = runGilscope({"report", "--scaling", "--json", bin});
        QVERIFY2(rep.exitCode == 0, qPrintable(describe(rep)));
        const QJsonObject p =
            QJsonDocument::fromJson(rep.outBytes).object()["parallelism"].toObject();
        const double running = p["mean_running"].toDouble(), wanting = p["mean_wanting"].toDouble();
        qInfo("%s: %d CPUs; the process used %.2f of them; gilscope: %.2f threads ran Python at "
              "once, %.2f wanted to",
              qPrintable(interpreter.label), cpus, used, running, wanting);
        QCOMPARE(p["cpus"].toInt(), cpus);
        // While the four run, they all want to (the sampler's first and last ticks may
        // catch them starting or ending).
        QVERIFY2(wanting >= 3.5, qPrintable(QString::number(wanting)));
        if (interpreter.freeThreaded) {
            // As many as the CPUs the process may use, and at least what it did use (on a
            // busy machine it gets less: the kernel does not tell a thread waiting for a
            // CPU from one on it, so then gilscope says more than it used).
            QVERIFY2(running >= std::min(4.0, used) - 0.25 && running <= std::min(4, cpus) + 0.01,
                     qPrintable(QStringLiteral("%1 vs %2").arg(running).arg(used)));
        } else {
            QVERIFY2(running <= 1.0, qPrintable(QString::number(running)));
            QVERIFY2(p["ceiling"].toInt() == 1, qPrintable(rep.out));
        }
    }

    // Issue 49: stop-the-world pauses. A thread calling gc.collect() in a loop stops those
    // that compute (three, or as many as the other CPUs: each must have a CPU of its own,
    // or its time off one is not the pauses' alone); the pauses name the collector and its
    // line, their length matches the time the program spent in gc.collect(), and the time
    // lost matches the compute threads' own time off a CPU.
    void stopTheWorldPauses_data() { addInterpreterRows(findFreeThreadedInterpreters()); }
    void stopTheWorldPauses() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetProcess target(interpreter, "ft_scaling.py", gatedTarget(dir, {"gc", "3"}));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const qint64 collectorTid =
            target.readyInfo()["threads"].toObject()["gc-thread"].toInteger();
        QString error;
        const QString bin = recordGated(dir, target, "gc.bin", &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto timed = target.readTimedJson("TIMES ");
        QVERIFY2(timed, qPrintable(target.error()));
        const double collectMs = 1000 * (*timed)["collect_s"].toDouble();
        const double truthLostMs = 1000 * (*timed)["lost_s"].toDouble();
        const int workers = (*timed)["workers"].toInt();
        const int line = (*timed)["collect_line"].toInt();
        const RunResult rep = runGilscope({"report", "--by", "pause", "--json", "-l", "0", bin});
        QVERIFY2(rep.exitCode == 0, qPrintable(describe(rep)));
        const QJsonObject j = QJsonDocument::fromJson(rep.outBytes).object();
        const QJsonArray rows = j["rows"].toArray();
        QVERIFY2(rows.size() >= 5, qPrintable(rep.out));
        // The pause time was asked for by the collector, from its gc.collect() line (the
        // target turned automatic collections off).
        const QString where = QStringLiteral("ft_scaling.py:%1(collector)").arg(line);
        double byCollector = 0, fromLine = 0, paused = 0;
        for (const QJsonValue& row : rows) {
            paused += row["duration_ms"].toDouble();
            if (row["requester_tid"].toInteger() != collectorTid) continue;
            byCollector += row["duration_ms"].toDouble();
            if (row["requester_frame"].toString().endsWith(where))
                fromLine += row["duration_ms"].toDouble();
        }
        const double lost = j["lost_ms"].toDouble();
        qInfo("%s: the program spent %.0f ms in gc.collect(), and its %d compute threads "
              "%.0f ms off a CPU; gilscope saw %lld pauses, %.0f ms (%.0f%% asked by gc-thread, "
              "%.0f%% from line %d), and %.0f ms lost by the threads they stopped",
              qPrintable(interpreter.label), collectMs, workers, truthLostMs,
              qlonglong(rows.size()), paused, 100 * byCollector / std::max(1.0, paused),
              100 * fromLine / std::max(1.0, paused), line, lost);
        QVERIFY2(byCollector >= 0.9 * paused, qPrintable(rep.out));
        QVERIFY2(fromLine >= 0.9 * paused, qPrintable(rep.out));
        QVERIFY2(std::abs(paused - collectMs) <= 0.1 * collectMs, qPrintable(rep.out));
        QVERIFY2(std::abs(lost - truthLostMs) <= 0.1 * truthLostMs, qPrintable(rep.out));
        // The text says the same, in words.
        const RunResult text = runGilscope({"report", "--by", "pause", bin});
        QVERIFY2(text.out.contains("Stop-the-world pauses seen") &&
                     text.out.contains("\"gc-thread\""),
                 qPrintable(text.out));
    }
};

QTEST_GUILESS_MAIN(TestFreeThreadedScaling)
#include "test_free_threaded_scaling.moc"
