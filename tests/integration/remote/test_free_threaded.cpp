// Free-threaded Python (issues 37, 49): a python3.13t built from Debian's source by
// scripts/setup-python-chroot.sh, read as a user would, through the CLI: dump, every
// output, `run`, `--mode gil` (the attached threads), and nothing said about a GIL that
// does not exist. The checks against the programs' own timing (per-thread shares,
// parallelism, pauses) are in test_free_threaded_scaling, which runs alone.
#include "tests/integration/pprof/go_pprof.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdlib>

using namespace gilscope::test;

namespace {

QString shellQuote(const QString& s) {
    return "'" + QString(s).replace("'", "'\\''") + "'";
}

// A scratch folder inside the chroot, seen from the host and from inside.
class ChrootScratch {
public:
    ChrootScratch() {
        QByteArray tmpl = (chrootDir() + "/tmp/gilscope-ft-XXXXXX").toLocal8Bit();
        if (::mkdtemp(tmpl.data())) host_ = QString::fromLocal8Bit(tmpl);
    }
    ~ChrootScratch() {
        if (!host_.isEmpty()) QDir(host_).removeRecursively();
    }
    bool ok() const { return !host_.isEmpty(); }
    QString host(const QString& name) const { return host_ + "/" + name; }
    QString inside(const QString& name) const { return host(name).mid(chrootDir().size()); }

private:
    QString host_;
};

// A command line that runs `program ARGS` inside the chroot (its own /proc mounted), the
// last exec being the program itself, as TargetProcess starts chroot interpreters.
QStringList inChroot(const QStringList& command) {
    QString sh = "set -e; mount -t proc proc " + shellQuote(chrootDir() + "/proc") +
                 "; exec chroot " + shellQuote(chrootDir());
    for (const QString& a : command)
        sh += " " + shellQuote(a);
    return {"unshare", "--mount", "--propagation", "private", "sh", "-c", sh};
}

} // namespace

class TestFreeThreaded : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        const QList<Interpreter> ft = findFreeThreadedInterpreters();
        printTestedInterpreters(ft);
        GILSCOPE_REQUIRE(!ft.isEmpty(),
                         "no free-threaded Python 3.13t: scripts/setup-python-chroot.sh builds it "
                         "from Debian's python3.13 source");
    }

    // dump says the build has no GIL, names every worker and shows where each is.
    void dumpSaysFreeThreaded_data() { addInterpreterRows(findFreeThreadedInterpreters()); }
    void dumpSaysFreeThreaded() {
        QFETCH(Interpreter, interpreter);
        TargetOptions options;
        options.args = {"60"};
        TargetProcess target(interpreter, "parallel_workers.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const RunResult text = runGilscope({"dump", QString::number(target.pid())});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("free-threaded (no GIL)"), qPrintable(text.out));
        // The process list says so too: "3.13.15t", as the interpreter is named.
        const RunResult ps = runGilscope({"ps", "--json"});
        QVERIFY2(ps.exitCode == 0, qPrintable(describe(ps)));
        QString listed;
        for (const QJsonValue& p : QJsonDocument::fromJson(ps.outBytes).array())
            if (p["pid"].toInteger() == target.pid()) listed = p["version"].toString();
        QVERIFY2(listed.endsWith('t') && listed.startsWith("3.13."), qPrintable(listed));
        const RunResult json = runGilscope({"dump", "-a", "--json", QString::number(target.pid())});
        QVERIFY2(json.exitCode == 0, qPrintable(describe(json)));
        const QJsonObject j = QJsonDocument::fromJson(json.outBytes).object();
        QCOMPARE(j["free_threaded"].toBool(), true);
        int workers = 0, attached = 0;
        for (const QJsonValue& t : j["threads"].toArray()) {
            const QJsonArray flags = t["flags"].toArray();
            // No GIL word for a build without one, on any thread.
            QVERIFY2(!flags.contains(QJsonValue("has_gil")) &&
                         !flags.contains(QJsonValue("gil_requested")),
                     qPrintable(QJsonDocument(t.toObject()).toJson()));
            if (!t["name"].toString().startsWith("pw-worker-")) {
                // The main thread sleeps (detached) while the workers run.
                QVERIFY2(!flags.contains(QJsonValue("attached")),
                         qPrintable(QJsonDocument(t.toObject()).toJson()));
                continue;
            }
            ++workers;
            QString frames;
            for (const QJsonValue& f : t["frames"].toArray())
                frames += f["function"].toString() + ";";
            QVERIFY2(frames.contains("worker;"), qPrintable(frames));
            attached += flags.contains(QJsonValue("attached")) ? 1 : 0;
        }
        QCOMPARE(workers, 4);
        // Busy: attached (running Python), but for a moment in a thread switch.
        QVERIFY2(attached >= 3, qPrintable(QString::number(attached)));
    }

    // Every output a recording of 3.13t can be written to, each read by what reads it
    // elsewhere: check-gecko, CPython 3.15's own reader for the .bin, Go's pprof.
    void everyOutput_data() { addInterpreterRows(findFreeThreadedInterpreters()); }
    void everyOutput() {
        QFETCH(Interpreter, interpreter);
        TargetOptions options;
        options.args = {"120"};
        TargetProcess target(interpreter, "parallel_workers.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        ChrootScratch scratch;
        QVERIFY(scratch.ok());
        const QString pid = QString::number(target.pid());
        auto record = [&](const QStringList& output, const QString& file) {
            const RunResult r = runGilscope(QStringList{"attach", "-a", "-d", "1"} + output +
                                            QStringList{"-o", scratch.host(file), pid});
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            QVERIFY2(QFileInfo(scratch.host(file)).size() > 0, qPrintable(file));
        };
        auto contents = [&](const QString& file) {
            QFile f(scratch.host(file));
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };

        record({"--gecko"}, "out.json");
        if (QTest::currentTestFailed()) return;
        const QString gecko = contents("out.json");
        for (const char* name : {"pw-worker-0", "pw-worker-3", "worker_calls", "worker_loop"})
            QVERIFY2(gecko.contains(name), name);
        QVERIFY2(!gecko.contains("\"Has GIL\""), "a GIL marker for a target without one");
        QVERIFY2(gecko.contains("\"Running Python\""), "no attached interval for busy workers");
        if (haveSharedDir()) {
            const RunResult lint =
                runProgram(sharedDir() + "/tools/check-gecko", {scratch.host("out.json")});
            QVERIFY2(lint.exitCode == 0, qPrintable(describe(lint)));
        }

        record({"--binary"}, "out.bin");
        if (QTest::currentTestFailed()) return;
        const RunResult info = runGilscope({"info", scratch.host("out.bin")});
        QVERIFY2(info.out.contains("free-threaded"), qPrintable(describe(info)));
        // CPython 3.15's reader (the chroot's python3.15) opens it and replays it.
        const QStringList replay =
            inChroot({"python3.15", "-m", "profiling.sampling", "replay", "--collapsed", "-o",
                      scratch.inside("cpython.txt"), scratch.inside("out.bin")});
        const RunResult cpy = runProgram(replay.first(), replay.mid(1), {}, 120000);
        QVERIFY2(cpy.exitCode == 0, qPrintable(describe(cpy)));
        QVERIFY2(contents("cpython.txt").contains("worker_calls"), qPrintable(describe(cpy)));

        record({"--collapsed"}, "out.txt");
        QVERIFY(contents("out.txt").contains("worker_loop"));
        record({"--flamegraph"}, "out.html");
        QVERIFY(contents("out.html").contains("worker_loop"));

        record({"--pprof"}, "out.pb.gz");
        if (QTest::currentTestFailed()) return;
        const QString noGo = goPprofMissing();
        GILSCOPE_REQUIRE(noGo.isEmpty(), noGo);
        bool ok = false;
        QString error;
        const auto top = goPprofTop(scratch.host("out.pb.gz"), {}, &ok, &error);
        QVERIFY2(ok, qPrintable(error));
        QVERIFY2(top.contains("worker_calls") && top.contains("worker_loop"),
                 qPrintable(QStringList(top.keys()).join(", ")));
    }

    // `run` starts a script under 3.13t and records it from its first line: gilscope's
    // startup hook (the first folder of PYTHONPATH) is bound into the chroot, so the
    // interpreter waits for the first tick as on the host.
    void runStartsAScript_data() { addInterpreterRows(findFreeThreadedInterpreters()); }
    void runStartsAScript() {
        QFETCH(Interpreter, interpreter);
        ChrootScratch scratch;
        QVERIFY(scratch.ok());
        QFile::copy(targetScript("parallel_workers.py"), scratch.host("parallel_workers.py"));
        QFile::copy(targetScript("_ready.py"), scratch.host("_ready.py"));
        const QString root = shellQuote(chrootDir());
        const QString sh = "set -e; mount -t proc proc " + root + "/proc; h=${PYTHONPATH%%:*}; " +
                           "mkdir -p " + root + "\"$h\"; mount --bind \"$h\" " + root + "\"$h\"; " +
                           "exec chroot " + root + " " + interpreter.executable + " " +
                           shellQuote(scratch.inside("parallel_workers.py")) + " 1";
        const RunResult r =
            runGilscope({"run", "-a", "--collapsed", "-o", scratch.host("run.txt"), "--", "unshare",
                         "--mount", "--propagation", "private", "sh", "-c", sh},
                        {}, 120000);
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(!r.err.contains("startup hook"), qPrintable(describe(r)));
        QFile f(scratch.host("run.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY2(text.contains("worker_calls") && text.contains("<module>"), qPrintable(text));
    }

    // --mode gil keeps the threads attached (running Python), as CPython's own profiler
    // does on a free-threaded build: the four workers, not the main thread asleep.
    void gilModeKeepsAttachedThreads_data() { addInterpreterRows(findFreeThreadedInterpreters()); }
    void gilModeKeepsAttachedThreads() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetOptions options;
        options.args = {"60"};
        options.bindDirs = {dir.path()};
        TargetProcess target(interpreter, "parallel_workers.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString bin = dir.filePath("gil.bin");
        const RunResult r = runGilscope({"attach", "-a", "--mode", "gil", "-d", "1", "--binary",
                                         "-o", bin, QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QString error;
        const QJsonObject all = reportJson(bin, {}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(rowTotal(all, "worker_loop") + rowTotal(all, "worker_calls") > 0,
                 qPrintable(QJsonDocument(all).toJson()));
        QCOMPARE(rowTotal(all, "<module>"), 0.0); // the main thread sleeps: detached
    }
};

QTEST_GUILESS_MAIN(TestFreeThreaded)
#include "test_free_threaded.moc"
