// `--pprof` output read by Go's own pprof (`go tool pprof`) on real Python processes, on
// every interpreter present: every file parses, -top gives heavy_light's 75/25 split,
// and -tagfocus=thread_state=gil keeps only the samples of the thread holding the GIL.
#include "go_pprof.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <sys/resource.h>

using namespace gilscope::test;

namespace {

// The line `def NAME(` is on in a target script: its code object's co_firstlineno.
int defLine(const QString& script, const QString& name) {
    QFile f(script);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (lines[i].startsWith("def " + name + "(")) return int(i + 1);
    return -1;
}

qint64 total(const QList<RawSample>& samples) {
    qint64 n = 0;
    for (const RawSample& s : samples)
        n += s.count;
    return n;
}

} // namespace

class TestPprof : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        // As test_record: the targets' busy loops need a head start over compile jobs.
        setpriority(PRIO_PROCESS, 0, -10);
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        printTestedInterpreters(all_);
        if (const QString missing = goPprofMissing(); !missing.isEmpty())
            QFAIL(qPrintable(missing));
    }

    // heavy() is 75% of the work; the target measures its own wall-clock split (a loaded
    // machine shifts it) and Go's -top must agree with it to within 10 points.
    void topGivesHeavyLightShares_data() { addInterpreterRows(all_); }
    void topGivesHeavyLightShares() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        const QString go = dir.filePath("go");
        TargetOptions options;
        options.args = {"3", go};
        options.bindDirs = {dir.path()};
        TargetProcess target(interpreter, targetScript("heavy_light_timed.py"), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString out = dir.filePath("out.pb.gz");
        // The target starts its 3 s once gilscope samples.
        const RunResult r = runGatedGilscope(
            {"attach", "--rt-priority", "1", "--pprof", "-o", out, QString::number(target.pid())},
            dir.path(), go);
        const QString& seen = r.out;
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(seen.contains("pprof profile written to"), qPrintable(seen));
        const auto shareLine = target.readLine();
        QVERIFY(shareLine && shareLine->startsWith("SHARE "));
        const double truth = shareLine->mid(6).toDouble();

        bool ok = false;
        QString error;
        const auto top = goPprofTop(out, {}, &ok, &error);
        QVERIFY2(ok, qPrintable(error));
        QVERIFY2(top.contains("heavy") && top.contains("light"), qPrintable(top.keys().join(' ')));
        const double heavy = top["heavy"].cum, light = top["light"].cum;
        QVERIFY2(heavy + light > 400, qPrintable(seen));
        const double share = 100.0 * heavy / (heavy + light);
        qInfo("%s: go tool pprof -top: heavy %.1f%% of %.0f samples; the target measured %.1f%%",
              qPrintable(interpreter.label), share, heavy + light, truth);
        QVERIFY2(std::abs(share - truth) <= 10, qPrintable(QString::number(share)));
        if (std::abs(truth - 75) <= 5)
            QVERIFY2(std::abs(share - 75) <= 10, qPrintable(QString::number(share)));
        // busy() is the leaf under both: its own (flat) samples are theirs.
        QVERIFY2(std::abs(top["busy"].flat - (heavy + light)) <= (heavy + light) * 0.02,
                 qPrintable(QString::number(top["busy"].flat)));
        // Functions carry their first line (co_firstlineno) as start_line: Go's -raw
        // prints it as "s=LINE" after each location.
        const RunResult raw = runGoPprof({"-raw", out});
        QVERIFY2(raw.exitCode == 0, qPrintable(describe(raw)));
        const QString script = targetScript("heavy_light_timed.py");
        for (const QString name : {"heavy", "busy"}) {
            const int line = defLine(script, name);
            QVERIFY(line > 0);
            const QRegularExpression at(
                QString(" %1 \\S*heavy_light_timed\\.py:\\d+ s=%2\\b").arg(name).arg(line));
            QVERIFY2(at.match(raw.out).hasMatch(), qPrintable(name + " s=" + QString::number(line) +
                                                              " not in:\n" + raw.out.left(3000)));
        }
    }

    // Two workers contend for the GIL and the main thread sleeps: the file has GIL holders
    // and others, and -tagfocus=thread_state=gil keeps only the holders, all of them.
    void tagfocusKeepsGilHolders_data() { addInterpreterRows(all_); }
    void tagfocusKeepsGilHolders() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, targetScript("gil_contention.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject threads = target.readyInfo()["threads"].toObject();
        QTemporaryDir dir;
        const QString out = dir.filePath("gil.pb.gz");
        const auto r = runGilscope({"attach", "-d", "1.5", "-a", "--mode", "all", "--pprof", "-o",
                                    out, QString::number(target.pid())},
                                   dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));

        bool ok = false;
        QString error;
        const auto everything = goPprofRawSamples(out, {}, &ok, &error);
        QVERIFY2(ok, qPrintable(error));
        qint64 holding = 0;
        QSet<QString> states, threadIds;
        for (const RawSample& s : everything) {
            states.insert(s.labels.value("thread_state"));
            threadIds.insert(s.labels.value("thread_id"));
            if (s.labels.value("thread_state") == "gil") holding += s.count;
        }
        const QStringList stateList(states.begin(), states.end());
        qInfo("%s: %lld of %lld samples hold the GIL; states %s", qPrintable(interpreter.label),
              holding, total(everything), qPrintable(stateList.join(',')));
        // Every thread, each sample labelled with its thread id.
        for (const char* name : {"worker-0", "worker-1", "main"})
            QVERIFY2(threadIds.contains(QString::number(threads[name].toInteger())),
                     qPrintable(name));
        QVERIFY(holding > 100);
        QVERIFY2(states.contains("idle") || states.contains("wait"),
                 qPrintable(stateList.join(',')));

        const auto focused = goPprofRawSamples(out, {"-tagfocus=thread_state=gil"}, &ok, &error);
        QVERIFY2(ok, qPrintable(error));
        for (const RawSample& s : focused)
            QCOMPARE(s.labels.value("thread_state"), QString("gil"));
        QCOMPARE(total(focused), holding);

        // Python's thread names (threading's registry, every version) reach the labels.
        QSet<QString> names;
        for (const RawSample& s : everything)
            names.insert(s.labels.value("thread_name"));
        QVERIFY2(names.contains("worker-0") && names.contains("worker-1"),
                 qPrintable(QStringList(names.begin(), names.end()).join(',')));
    }

    // A .bin replayed to pprof: Go reads it and it holds every sample, with the header
    // pprof expects (sample types, period from the rate).
    void replayWritesWhatGoReads() {
        const Interpreter interpreter = all_.last();
        TargetProcess target(interpreter, targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString bin = dir.filePath("rec.bin");
        auto r = runGilscope({"attach", "-d", "1", "-r", "500", "--binary", "-o", bin,
                              QString::number(target.pid())},
                             dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString out = dir.filePath("replayed.pb.gz");
        r = runGilscope({"replay", "--pprof", "-o", out, bin}, dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        static const QRegularExpression replayed("Replayed (\\d+) samples");
        const auto m = replayed.match(r.err);
        QVERIFY2(m.hasMatch(), qPrintable(describe(r)));

        bool ok = false;
        QString error;
        const auto samples = goPprofRawSamples(out, {}, &ok, &error);
        QVERIFY2(ok, qPrintable(error));
        QCOMPARE(total(samples), m.captured(1).toLongLong());
        const RunResult raw = runGoPprof({"-raw", out});
        QVERIFY2(raw.out.contains("PeriodType: wall nanoseconds"), qPrintable(raw.out.left(400)));
        QVERIFY2(raw.out.contains("Period: 2000000\n"), qPrintable(raw.out.left(400)));
        QVERIFY2(raw.out.contains("samples/count wall/nanoseconds"), qPrintable(raw.out.left(400)));
        QVERIFY2(raw.out.contains("Duration: "), qPrintable(raw.out.left(400)));
        // Go keeps Python's <module> as it is (it "demangles" a system_name, and would
        // strip <...> from one as C++ template parameters).
        QVERIFY2(raw.out.contains(" <module> "), qPrintable(raw.out));
        qInfo("%s: replayed %s samples; go tool pprof read them all", qPrintable(interpreter.label),
              qPrintable(m.captured(1)));
    }
};

QTEST_GUILESS_MAIN(TestPprof)
#include "test_pprof.moc"
