// `--subprocesses`: every Python process the target starts, directly or through a shell,
// gets its own recording named as CPython names it, on every interpreter present.
// spawner.py starts its two children only once gilscope samples (a go-file), so the test
// waits for events, not time.
#include "record_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope::test;

namespace {

// "PID START" lines the children wrote.
QList<qint64> childPids(const QString& log) {
    QList<qint64> pids;
    QFile f(log);
    if (!f.open(QIODevice::ReadOnly)) return pids;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.isEmpty()) pids.append(line.split(' ').value(0).toLongLong());
    return pids;
}

int statsSamples(const QString& line) {
    const qsizetype at = line.indexOf(QStringLiteral("Samples: "));
    return at < 0 ? -1 : line.mid(at + 9).section(' ', 0, 0).toInt();
}

} // namespace

class TestSubprocesses : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

    // Attaches with `extra` to a spawner.py target, lets it start its children once
    // sampling runs, and returns what gilscope printed; the children's pids go to *children.
    QString recordSpawner(const Interpreter& interpreter, const QTemporaryDir& dir,
                          const QStringList& extra, QList<qint64>* children,
                          const QStringList& how = {}) {
        const QString go = dir.filePath("go");
        TargetOptions options;
        options.args = QStringList{go, "2.5"} + how;
        options.bindDirs = {dir.path()};
        TargetProcess target(interpreter, targetScript("spawner.py"), options);
        if (!target.start()) return "target did not start: " + target.error();
        QStringList args{"attach", "--subprocesses", "--realtime-stats", "-r", "500"};
        args << extra << QString::number(target.pid());
        const auto p = startGilscope(args, dir.path(), QProcess::MergedChannels);
        if (!p) return "gilscope did not start";
        QString out;
        if (!waitForStdoutLine(
                *p, [](const QString& line) { return statsSamples(line) > 0; }, &out))
            return "no sampling started: " + out;
        QFile(go).open(QIODevice::WriteOnly);
        if (!p->waitForFinished(kRunTimeoutMs)) return "gilscope did not finish";
        const QString err = out + QString::fromUtf8(p->readAllStandardOutput());
        if (p->exitStatus() != QProcess::NormalExit || p->exitCode() != 0)
            return QStringLiteral("gilscope exit %1: %2").arg(p->exitCode()).arg(err);
        *children = childPids(go + ".children");
        return err;
    }

private slots:
    void initTestCase() {
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        printTestedInterpreters(all_);
    }

    // One output per child, `out_{pid}.txt` for `-o out.txt`, holding that child's own
    // functions, named right; the parent's output has none.
    void everyPythonChildGetsItsOwnRecording_data() { addInterpreterRows(all_); }
    void everyPythonChildGetsItsOwnRecording() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QList<qint64> children;
        const QString err =
            recordSpawner(interpreter, dir, {"-o", dir.filePath("out.txt")}, &children);
        QCOMPARE(children.size(), 2);
        for (qint64 child : children) {
            QVERIFY2(
                err.contains(QStringLiteral("Started profiler for child process %1").arg(child)),
                qPrintable(err));
            bool ok = false;
            const QString path = dir.filePath(QStringLiteral("out_%1.txt").arg(child));
            const auto stacks = readCollapsed(path, &ok);
            QVERIFY2(ok, qPrintable(path + " missing or malformed; stderr: " + err));
            const qint64 heavy = samplesIn(stacks, "heavy_work");
            const qint64 light = samplesIn(stacks, "light_work");
            const qint64 total = totalSamples(stacks);
            qInfo("%s child %lld: %lld samples, heavy_work %lld, light_work %lld",
                  qPrintable(interpreter.label), child, total, heavy, light);
            // Its own functions, much of the time (the rest is its start-up, slow when loaded)...
            QVERIFY2(heavy + light >= 20 && (heavy + light) * 4 > total,
                     qPrintable(path + ":\n" + QStringList(stacks.keys()).join('\n')));
            // ...and named right: busy() runs only under them. An attach during start-up
            // once named them after code objects that start-up had freed at their address.
            for (auto it = stacks.cbegin(); it != stacks.cend(); ++it)
                if (it.key().contains("busy ("))
                    QVERIFY2(it.key().contains("heavy_work (") || it.key().contains("light_work ("),
                             qPrintable(it.key()));
        }
        bool ok = false;
        const auto parent = readCollapsed(dir.filePath("out.txt"), &ok);
        QVERIFY(ok);
        QVERIFY(samplesIn(parent, "parent_wait") > 0);
        QCOMPARE(samplesIn(parent, "heavy_work"), 0);
        // Exactly the parent's and the two children's outputs.
        QCOMPARE(QDir(dir.path()).entryList({"out*.txt"}, QDir::Files).size(), 3);
    }

    // A fork that never execs (multiprocessing's fork) is recorded as it is, once it
    // shows it runs on its own; a subprocess child is not recorded before its exec, however
    // long it waits for a core (everyPythonChildGetsItsOwnRecording: no fourth file).
    void aForkThatNeverExecsIsRecorded_data() { addInterpreterRows(all_); }
    void aForkThatNeverExecsIsRecorded() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QList<qint64> children;
        const QString err =
            recordSpawner(interpreter, dir, {"-o", dir.filePath("out.txt")}, &children, {"fork"});
        QCOMPARE(children.size(), 1);
        QVERIFY2(err.contains(
                     QStringLiteral("Started profiler for child process %1").arg(children.first())),
                 qPrintable(err));
        bool ok = false;
        const QString path = dir.filePath(QStringLiteral("out_%1.txt").arg(children.first()));
        const auto stacks = readCollapsed(path, &ok);
        QVERIFY2(ok, qPrintable(path + " missing or malformed; stderr: " + err));
        const qint64 work = samplesIn(stacks, "heavy_work") + samplesIn(stacks, "light_work");
        qInfo("%s fork: %lld samples, %lld in its work", qPrintable(interpreter.label),
              totalSamples(stacks), work);
        QVERIFY2(work >= 20, qPrintable(QStringList(stacks.keys()).join('\n')));
        QCOMPARE(QDir(dir.path()).entryList({"out*.txt"}, QDir::Files).size(), 2);
    }

    // Without -o, children get CPython's default names: `{format}_{pid}.{ext}`, and
    // `profile_{pid}.pstats` for --pstats (whose parent prints its table).
    void childrenGetCPythonsDefaultNames() {
        const auto host = findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!host.isEmpty(), "no host interpreter");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QList<qint64> children;
        const QString err = recordSpawner(host.last(), dir, {"--pstats"}, &children);
        QCOMPARE(children.size(), 2);
        for (qint64 child : children)
            QVERIFY2(QFile::exists(dir.filePath(QStringLiteral("profile_%1.pstats").arg(child))),
                     qPrintable(QDir(dir.path()).entryList().join(' ') + "\n" + err));
    }
};

QTEST_MAIN(TestSubprocesses)
#include "test_subprocesses.moc"
