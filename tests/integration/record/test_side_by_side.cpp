// gilscope and CPython 3.15's own profiler (`python3.15 -m profiling.sampling`) attached
// at the same time to the same 3.15 target: for --mode cpu, --mode gil, --async-aware and
// --subprocesses, the shares of the top functions agree within a few points. CPython's
// profiler runs inside the target's mount namespace and root (nsenter), where the sid
// chroot's 3.15 lives. Skips when there is no 3.15.
#include "record_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope::test;

namespace {

// Both sample the same moments of the same process, but each sampler competes with the
// target for the CPU in its own way: on a loaded 2-core machine the shares differed by
// 0.2-4 points, at most 9. A broken mode is far off (in wall mode the waiting main thread
// and the sleeper take half the samples).
constexpr double kTolerance = 0.12;

// Samples per function (each sample once per function on its stack), from collapsed
// stacks: gilscope writes frames as "func (file:line)", CPython as "file:func:line"
// after a "tid:N" root.
// A frame's function: "file:func:line" (CPython), "func (file:line)" (gilscope); the
// special frames ("<native>", "<GC>") CPython writes bare, gilscope as "<native> (~:0)".
QString frameName(const QString& frame, bool cpythonFormat) {
    if (cpythonFormat) return frame.contains(':') ? frame.section(':', 1, 1) : frame;
    return frame.section(" (", 0, 0);
}

// The share of samples whose whole stack (root first, thread root left out) is `shape`.
double shapeShare(const QMap<QString, qint64>& stacks, bool cpythonFormat, const QString& shape) {
    qint64 total = 0, match = 0;
    for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
        QStringList names;
        for (const QString& frame : it.key().split(';'))
            if (!frame.startsWith("tid:")) names << frameName(frame, cpythonFormat);
        total += it.value();
        if (names.join(';') == shape) match += it.value();
    }
    return total > 0 ? double(match) / double(total) : 0;
}

QMap<QString, double> shares(const QMap<QString, qint64>& stacks, bool cpythonFormat,
                             const QStringList& functions) {
    QMap<QString, double> out;
    qint64 total = 0;
    for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
        total += it.value();
        QSet<QString> seen;
        for (const QString& frame : it.key().split(';')) {
            const QString name = frameName(frame, cpythonFormat);
            if (functions.contains(name)) seen.insert(name);
        }
        for (const QString& f : seen)
            out[f] += double(it.value());
    }
    for (const QString& f : functions)
        out[f] = total > 0 ? out.value(f) / double(total) : 0;
    return out;
}

QString describeShares(const QMap<QString, double>& s) {
    QStringList parts;
    for (auto it = s.cbegin(); it != s.cend(); ++it)
        parts << QStringLiteral("%1 %2%").arg(it.key()).arg(it.value() * 100, 0, 'f', 1);
    return parts.join(", ");
}

} // namespace

class TestSideBySide : public QObject {
    Q_OBJECT
    QList<Interpreter> py315_;

    // CPython's profiler inside the target's namespace, started now.
    static std::unique_ptr<QProcess> startCPython(qint64 targetPid, const Interpreter& py,
                                                  const QStringList& args) {
        auto p = std::make_unique<QProcess>();
        QStringList all{"-t", QString::number(targetPid), "-m",    "-r", "-w", py.executable,
                        "-m", "profiling.sampling",       "attach"};
        all << args << QString::number(targetPid);
        p->start("nsenter", all);
        if (!p->waitForStarted(30000)) return nullptr;
        return p;
    }

    // Both profilers on one target for `seconds`, same rate and mode; returns the shares of
    // `functions` as {gilscope, CPython}.
    // `shapes`: whole stacks ("<native>;<module>;outer") whose shares must agree too.
    void compare(const QString& script, const QStringList& mode, const QStringList& functions,
                 double tolerance, const QStringList& shapes = {}) {
        GILSCOPE_REQUIRE(!py315_.isEmpty(), "no Python 3.15 (run scripts/setup-python-chroot.sh)");
        const Interpreter& py = py315_.first();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetOptions options;
        options.bindDirs = {dir.path()};
        TargetProcess target(py, targetScript(script), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString ours = dir.filePath("gilscope.txt"), theirs = dir.filePath("cpython.txt");
        // CPython refuses -a with --async-aware (tasks are read from every thread anyway).
        const QStringList threads =
            mode.contains("--async-aware") ? QStringList{} : QStringList{"-a"};
        const QStringList common = threads + QStringList{"-r", "1000", "-d", "3"} + mode;
        auto cpython =
            startCPython(target.pid(), py, common + QStringList{"--collapsed", "-o", theirs});
        QVERIFY(cpython);
        const RunResult r =
            runGilscope(QStringList{"attach"} + common +
                        QStringList{"--collapsed", "-o", ours, QString::number(target.pid())});
        QVERIFY2(cpython->waitForFinished(60000), "CPython's profiler did not finish");
        const QString cpyErr = QString::fromUtf8(cpython->readAllStandardError());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(cpython->exitCode() == 0, qPrintable(cpyErr));
        bool ok1 = false, ok2 = false;
        const auto ourStacks = readCollapsed(ours, &ok1), theirStacks = readCollapsed(theirs, &ok2);
        const auto a = shares(ourStacks, false, functions);
        const auto b = shares(theirStacks, true, functions);
        QVERIFY2(ok1 && ok2, "an output is missing or malformed");
        qInfo("%s %s: gilscope %s | CPython %s", qPrintable(script), qPrintable(mode.join(' ')),
              qPrintable(describeShares(a)), qPrintable(describeShares(b)));
        for (const QString& f : functions)
            QVERIFY2(std::abs(a.value(f) - b.value(f)) <= tolerance,
                     qPrintable(QStringLiteral("%1: gilscope %2 vs CPython %3")
                                    .arg(f)
                                    .arg(a.value(f))
                                    .arg(b.value(f))));
        for (const QString& shape : shapes) {
            const double x = shapeShare(ourStacks, false, shape);
            const double y = shapeShare(theirStacks, true, shape);
            qInfo("  %s: gilscope %.1f%% | CPython %.1f%%", qPrintable(shape), x * 100, y * 100);
            QVERIFY2(x > 0 && y > 0 && std::abs(x - y) <= tolerance, qPrintable(shape));
        }
    }

    // Waits until `p` printed `marker` on stdout (CPython's --realtime-stats line has no
    // newline, so this reads bytes, not lines).
    static bool waitForOutput(QProcess& p, const QByteArray& marker, QByteArray* seen) {
        QElapsedTimer timer;
        timer.start();
        while (!seen->contains(marker)) {
            if (timer.elapsed() > 60000 || p.state() == QProcess::NotRunning) return false;
            p.waitForReadyRead(200);
            *seen += p.readAllStandardOutput();
        }
        return true;
    }

private slots:
    void initTestCase() {
        py315_ = findInterpreters(15, 15);
        printTestedInterpreters(py315_);
        if (QStandardPaths::findExecutable("nsenter").isEmpty()) py315_.clear();
    }

    // asyncio task stacks: each task's share (its name is a <task> frame), and its chain's.
    void asyncAwareAgrees() {
        compare("async_tasks.py", {"--async-aware"},
                {"alpha", "beta", "gamma", "alpha_inner", "beta_leaf", "gamma_work", "burn"},
                kTolerance,
                {"Task-1;main;alpha;alpha_outer;alpha_inner;slices;burn",
                 "Task-1;main;beta;beta_outer;beta_middle;beta_leaf;slices;burn",
                 "Task-1;main;gamma;gamma_work;slices;burn"});
    }

    void asyncAwareAllAgrees() {
        compare("async_tasks.py", {"--async-aware", "--async-mode", "all"},
                {"alpha", "beta", "gamma", "alpha_inner", "beta_leaf", "gamma_work", "sleep"},
                kTolerance);
    }

    // On-CPU samples: the spinner and the part-time worker, never the sleeper.
    void modeCpuAgrees() {
        compare("three_workers.py", {"--mode", "cpu"}, {"heavy_work", "light_work", "doze"},
                kTolerance);
    }

    // Each child of spawner.py, recorded by both profilers' --subprocesses at once.
    void subprocessesAgree() {
        GILSCOPE_REQUIRE(!py315_.isEmpty(), "no Python 3.15 (run scripts/setup-python-chroot.sh)");
        const Interpreter& py = py315_.first();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString go = dir.filePath("go");
        TargetOptions options;
        options.args = {go, "3"};
        options.bindDirs = {dir.path()};
        TargetProcess target(py, targetScript("spawner.py"), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QStringList common{"--subprocesses", "-r", "1000", "--realtime-stats", "--collapsed"};
        auto cpython =
            startCPython(target.pid(), py, common + QStringList{"-o", dir.filePath("cpy.txt")});
        QVERIFY(cpython);
        auto ours = startGilscope(
            QStringList{"attach"} + common +
                QStringList{"-o", dir.filePath("gs.txt"), QString::number(target.pid())},
            dir.path(), QProcess::MergedChannels);
        QVERIFY(ours);
        QByteArray cpyOut, ourOut;
        QVERIFY2(waitForOutput(*cpython, "N=", &cpyOut), cpyOut.constData());
        QVERIFY2(waitForOutput(*ours, "Samples: ", &ourOut), ourOut.constData());
        QVERIFY(QFile(go).open(QIODevice::WriteOnly));
        QVERIFY2(ours->waitForFinished(120000), "gilscope did not finish");
        QVERIFY2(cpython->waitForFinished(120000), "CPython's profiler did not finish");
        QFile log(go + ".children");
        QVERIFY(log.open(QIODevice::ReadOnly));
        int compared = 0;
        for (const QByteArray& line : log.readAll().split('\n')) {
            if (line.isEmpty()) continue;
            const QString pid = QString::fromLatin1(line.split(' ').value(0));
            const QStringList functions{"heavy_work", "light_work"};
            bool ok1 = false, ok2 = false;
            const auto ourStacks = readCollapsed(dir.filePath("gs_" + pid + ".txt"), &ok1);
            QVERIFY2(ok1, qPrintable("child " + pid + ": gilscope wrote no output; files: " +
                                     QDir(dir.path()).entryList(QDir::Files).join(' ')));
            const auto theirStacks = readCollapsed(dir.filePath("cpy_" + pid + ".txt"), &ok2);
            if (!ok2) { // CPython's monitor misses a child now and then on a loaded machine
                qInfo("child %s: CPython's profiler recorded nothing", qPrintable(pid));
                continue;
            }
            const auto a = shares(ourStacks, false, functions);
            const auto b = shares(theirStacks, true, functions);
            qInfo("child %s: gilscope %s | CPython %s", qPrintable(pid),
                  qPrintable(describeShares(a)), qPrintable(describeShares(b)));
            for (const QString& f : functions)
                QVERIFY2(std::abs(a.value(f) - b.value(f)) <= kTolerance,
                         qPrintable(QStringLiteral("child %1 %2: gilscope %3 vs CPython %4")
                                        .arg(pid, f)
                                        .arg(a.value(f))
                                        .arg(b.value(f))));
            ++compared;
        }
        if (compared == 0) QSKIP("CPython's profiler recorded neither child: nothing to compare");
    }

    // --native: both put <native> at the same places, in the same shares.
    void nativeAgrees() {
        compare("native_calls.py", {"--native"}, {"<native>", "key", "sleeper", "outer"},
                kTolerance, {"<native>;<module>;outer;<native>;key", "<native>;<module>;sleeper"});
    }

    // GIL holders: the two workers take turns.
    void modeGilAgrees() {
        compare("three_workers.py", {"--mode", "gil"}, {"heavy_work", "light_work", "doze"},
                kTolerance);
    }
};

QTEST_MAIN(TestSideBySide)
#include "test_side_by_side.moc"
