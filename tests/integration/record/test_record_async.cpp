// --async-aware with --async-mode {running,all} of `gilscope attach` against a real
// asyncio program (async_tasks.py: three named tasks under main's gather) on every
// interpreter present. 3.14+ publish asyncio's debug offsets: each task's name must sit
// over its own coroutine chain, under the task awaiting it. 3.8-3.13 do not: refused
// with exit 6 and a message naming the version.
#include "record_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope::test;

namespace {

const QString kTaskFile = QStringLiteral("<task>:0)");

// Samples whose stack has task `name`'s frame followed by `chain` (root first) with no
// other task frame in between: the chain shown under its own task. `underTask`: how many
// of those also have a task frame above it (the task awaiting it).
qint64 underItsTask(const QMap<QString, qint64>& stacks, const QString& name,
                    const QStringList& chain, qint64* underTask) {
    qint64 n = 0;
    for (auto it = stacks.cbegin(); it != stacks.cend(); ++it) {
        const QStringList frames = it.key().split(';');
        const qsizetype at = frames.indexOf(name + " (" + kTaskFile);
        if (at < 0) continue;
        qsizetype next = at + 1;
        bool whole = true;
        for (const QString& fn : chain) {
            while (next < frames.size() && frames[next].section(" (", 0, 0) != fn &&
                   !frames[next].endsWith(kTaskFile))
                ++next;
            if (next >= frames.size() || frames[next].endsWith(kTaskFile)) {
                whole = false;
                break;
            }
            ++next;
        }
        if (!whole) continue;
        n += it.value();
        for (qsizetype i = 0; i < at; ++i)
            if (frames[i].endsWith(kTaskFile)) {
                *underTask += it.value();
                break;
            }
    }
    return n;
}

} // namespace

class TestRecordAsync : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    // CPython's rules for the options, before any target is touched (exit 2).
    void optionsCheckedAsCPythonDoes() {
        const RunResult binary = runGilscope({"attach", "1", "--async-aware", "--binary"});
        QCOMPARE(binary.exitCode, 2);
        QVERIFY2(binary.err.contains("Options --binary are incompatible with --async-aware"),
                 qPrintable(binary.err));
        const RunResult several =
            runGilscope({"attach", "1", "--async-aware", "--native", "-a", "--mode", "cpu"});
        QCOMPARE(several.exitCode, 2);
        QVERIFY2(several.err.contains(
                     "Options --native, --mode=cpu, --all-threads are incompatible with "
                     "--async-aware"),
                 qPrintable(several.err));
        const RunResult alone = runGilscope({"attach", "1", "--async-mode", "all"});
        QCOMPARE(alone.exitCode, 2);
        QVERIFY2(alone.err.contains("--async-mode requires --async-aware"), qPrintable(alone.err));
        const RunResult bad = runGilscope({"attach", "1", "--async-aware", "--async-mode", "x"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("invalid choice: 'x' (choose from 'running', 'all')"),
                 qPrintable(bad.err));
    }

    // `dump --async-aware`: every task with its coroutines, each under the task that awaits
    // it: the three named tasks under main's, each with its own chain (newest first), in
    // the JSON and the text. Refused on 3.8-3.13 as the recording is.
    void dumpShowsTheTaskTree_data() { addInterpreterRows(all_); }
    void dumpShowsTheTaskTree() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "async_tasks.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        if (interpreter.minor < 14) {
            const RunResult r = runGilscope({"dump", "--async-aware", pid});
            QCOMPARE(r.exitCode, 6);
            QVERIFY2(r.err.contains("--async-aware needs Python 3.14 or newer"),
                     qPrintable(describe(r)));
            return;
        }
        const QJsonObject chains = target.readyInfo().value("tasks").toObject();
        const RunResult r = runGilscope({"dump", "--async-aware", "--json", pid});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonArray roots = QJsonDocument::fromJson(r.out.toUtf8())["tasks"].toArray();
        QCOMPARE(roots.size(), 1); // main's task, awaiting the three
        const QJsonArray awaited = roots[0]["awaits"].toArray();
        QStringList names;
        int whole = 0;
        for (const QJsonValue task : awaited) {
            const QString name = task["name"].toString();
            names << name;
            QStringList newestFirst;
            for (const QJsonValue f : task["frames"].toArray())
                newestFirst.prepend(f["function"].toString());
            QStringList chain;
            for (const QJsonValue fn : chains[name].toArray())
                chain << fn.toString();
            // A waiting task awaits asyncio.sleep(0), a coroutine too; the running one is in
            // burn(), a plain function on its thread's stack.
            const QString leaf = task["running"].toBool() ? "burn" : "sleep";
            if (newestFirst.size() == chain.size() + 1 && newestFirst.last() == leaf)
                newestFirst.removeLast();
            // A task the loop switched to between the two reads was running at the second:
            // its chain stops at its outer coroutine (CPython's reads stop there too).
            QVERIFY2(!newestFirst.isEmpty() && chain.mid(0, newestFirst.size()) == newestFirst,
                     qPrintable(name + ": " + newestFirst.join(" > ")));
            whole += newestFirst == chain;
            QVERIFY(task["awaits"].toArray().isEmpty());
        }
        names.sort();
        QCOMPARE(names, QStringList({"alpha", "beta", "gamma"}));
        QVERIFY2(whole >= 2, "one task at a time runs: the others wait, their chains whole");
        const RunResult text = runGilscope({"dump", "--async-aware", pid});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("asyncio tasks (each under the task that awaits it):\n"),
                 qPrintable(text.out));
        QVERIFY2(text.out.contains(QRegularExpression("\n    awaits Task \"beta\"[^\n]*\n"
                                                      "(        \\w+ \\([^\n]*\n)*"
                                                      "        beta_outer \\(")),
                 qPrintable(text.out));
    }

    void tasksOverTheirChains_data() { addInterpreterRows(all_); }
    void tasksOverTheirChains() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "async_tasks.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString pid = QString::number(target.pid());
        if (interpreter.minor < 14) {
            const QString out = dir.filePath("refused.txt");
            const RunResult r = runGilscope({"attach", pid, "-d", "1", "--async-aware", "-o", out});
            QCOMPARE(r.exitCode, 6);
            QVERIFY2(r.err.contains("--async-aware needs Python 3.14 or newer: Python 3." +
                                    QString::number(interpreter.minor)),
                     qPrintable(r.err));
            QVERIFY(!QFile::exists(out));
            return;
        }
        const QJsonObject chains = target.readyInfo().value("tasks").toObject();
        QCOMPARE(chains.size(), 3);
        for (const QString mode : {"running", "all"}) {
            const QString out = dir.filePath(mode + ".txt");
            const RunResult r = runGilscope(
                {"attach", pid, "-d", "1.5", "--async-aware", "--async-mode", mode, "-o", out});
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            bool ok = false;
            const auto stacks = readCollapsed(out, &ok);
            QVERIFY(ok);
            const QString all = QStringList(stacks.keys()).join('\n');
            // Every stack starts at a task: the sync frames of the event loop are not shown.
            for (auto it = stacks.cbegin(); it != stacks.cend(); ++it)
                QVERIFY2(it.key().section(';', 0, 0).endsWith(kTaskFile), qPrintable(it.key()));
            QList<qint64> perTask;
            for (auto it = chains.begin(); it != chains.end(); ++it) {
                QStringList chain;
                for (const auto& fn : it.value().toArray())
                    chain << fn.toString();
                // running: the thread's frames, so the leaf is burn() under the chain.
                if (mode == "running") chain << "burn";
                qint64 awaited = 0;
                const qint64 n = underItsTask(stacks, it.key(), chain, &awaited);
                qInfo("%s %s: %lld samples of %s under its task (%lld under main's)",
                      qPrintable(interpreter.label), qPrintable(mode), static_cast<long long>(n),
                      qPrintable(it.key()), static_cast<long long>(awaited));
                QVERIFY2(n >= 5, qPrintable(it.key() + " in:\n" + all));
                QVERIFY2(awaited == n, qPrintable(it.key() + " not under main's task in:\n" + all));
                perTask << n;
            }
            // Per task, not only "some" (issue 18 item 17): the tasks take turns in equal
            // slices, so each has a fair share of the task samples (a third; seen 31-35% in
            // both modes at load 20): a task the reader loses or starves fails.
            qint64 sum = 0;
            for (qint64 n : perTask)
                sum += n;
            for (qint64 n : perTask)
                QVERIFY2(n * 100 >= sum * 20, qPrintable(QString("%1 of %2").arg(n).arg(sum)));
        }
    }
};

QTEST_GUILESS_MAIN(TestRecordAsync)
#include "test_record_async.moc"
