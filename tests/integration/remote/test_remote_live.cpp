// Reads real Python processes under every interpreter on the machine (pyenv 3.8-3.13,
// Debian's static python3.11, the sid chroot's 3.14/3.15) and checks names, lines,
// threads and status bits against what the target itself reports.
#include "core/remote/live_process_reader.h"
#include "core/remote/live_stack_source.h"
#include "core/sample/thread_status.h"
#include "tests/integration/remote/remote_test_helpers.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/shared_dir.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <map>

using namespace gilscope;
using gilscope::test::Interpreter;
using gilscope::test::TargetOptions;
using gilscope::test::TargetProcess;

namespace {

constexpr size_t kCpythonDepthCap = 1024 + 512;

std::unique_ptr<StackSource> open(qint64 pid, bool allThreads, QString* error) {
    ReadOptions o;
    o.allThreads = allThreads;
    auto src = openLiveProcess(int(pid), o);
    if (!src) {
        *error = QString::fromStdString(src.error().message);
        return nullptr;
    }
    return std::move(*src);
}

#define OPEN_OR_FAIL(var, pid, all)                                                                \
    QString openError;                                                                             \
    auto var = open(pid, all, &openError);                                                         \
    QVERIFY2(var, qPrintable(openError))

#define READ_UNTIL_OR_FAIL(src, snap, pred)                                                        \
    test::Snapshot snap;                                                                           \
    {                                                                                              \
        QString readError;                                                                         \
        QVERIFY2(test::readUntil(*src, snap, &readError, pred), qPrintable(readError));            \
    }

#define READ_OR_FAIL(src, snap)                                                                    \
    test::Snapshot snap;                                                                           \
    {                                                                                              \
        QString readError;                                                                         \
        QVERIFY2(test::readOnce(*src, snap, &readError), qPrintable(readError));                   \
    }

// process_vm_readv calls per sample over 200 reads of a target whose stacks sit still
// (after 20 warm-up reads); every sample must pass `steady`. -1 when a read failed.
template <typename Pred>
double syscallsPerSteadySample(StackSource& src, Pred steady, QString* error) {
    auto* live = dynamic_cast<remote::LiveProcessReader*>(&src);
    if (!live) {
        *error = QStringLiteral("not a live process reader");
        return -1;
    }
    test::Snapshot snap;
    for (int i = 0; i < 20; ++i)
        if (!test::readOnce(src, snap, error)) return -1;
    constexpr int kSamples = 200;
    const uint64_t before = live->syscalls();
    for (int i = 0; i < kSamples; ++i) {
        if (!test::readOnce(src, snap, error)) return -1;
        if (!steady(snap)) {
            *error = QStringLiteral("the stacks changed during the measurement");
            return -1;
        }
    }
    return double(live->syscalls() - before) / kSamples;
}

// Whether a stack's leaf is `func`, by its plain name (3.8-3.10) or qualified name
// (3.11+: "Condition.wait").
bool leafIs(const QStringList& names, const QString& func) {
    return !names.isEmpty() &&
           (names.front() == func || names.front().endsWith(QLatin1Char('.') + func));
}

} // namespace

class TestRemoteLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void threeDeepChain_data() { test::addInterpreterRows(test::findEveryBuild()); }
    void threeDeepChain() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "three_deep.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), false);
        QCOMPARE(int(src->pythonVersion().minor), interpreter.minor);
        const size_t depth = size_t(target.readyInfo()["frames"].toArray().size());
        READ_UNTIL_OR_FAIL(src, snap, [&](const test::Snapshot& s) {
            return s.count == 1 && s.threads[0].frames.size() == depth;
        });
        QCOMPARE(snap.count, size_t(1));
        const ThreadStack& t = snap.threads[0];
        QVERIFY(t.status & ThreadStatus::MainThread);
        QCOMPARE(t.threadId, uint64_t(target.pid()));
        const QJsonArray expected = target.readyInfo()["frames"].toArray();
        QCOMPARE(t.frames.size(), size_t(expected.size()));
        auto& reg = src->registry();
        for (int i = 0; i < expected.size(); ++i) {
            const QJsonObject e = expected[i].toObject();
            const FrameInfo& f = reg.frame(t.frames[size_t(i)]);
            const QString want =
                interpreter.minor >= 11 ? e["qualname"].toString() : e["name"].toString();
            QCOMPARE(QString::fromStdString(reg.string(f.funcname)), want);
            QCOMPARE(f.line, e["line"].toInt());
            QVERIFY2(QString::fromStdString(reg.string(f.filename)).endsWith("three_deep.py"),
                     reg.string(f.filename).c_str());
        }
        // 3.11+ location tables give columns; the leaf is the `n += 1` statement.
        if (interpreter.minor >= 11) QVERIFY(reg.frame(t.frames[0]).column >= 0);
    }

    void fourThreads_data() { test::addInterpreterRows(test::findInterpreters()); }
    void fourThreads() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "four_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), true);
        const QJsonObject threads = target.readyInfo()["threads"].toObject();
        std::map<uint64_t, QString> nameByTid;
        for (auto it = threads.begin(); it != threads.end(); ++it)
            nameByTid[uint64_t(it.value().toInteger())] = it.key();

        // Reads race with GIL hand-offs, and on a loaded machine a released GIL can stay
        // free until a waiter is scheduled: sample until 20 samples had a single holder
        // (never more than one, checked below), however long that takes.
        constexpr int kOneHolderWanted = 20, kMaxSamples = 20000;
        int samples = 0, exactlyOneHolder = 0, holderOnCpu = 0;
        // Main prints READY, then blocks in Event.wait() for good; on a loaded machine it
        // can be preempted holding the GIL on the way there. Once seen waiting without
        // the GIL it never runs again, so from then on only contenders may hold it.
        bool mainBlocked = false;
        auto& reg = src->registry();
        for (; samples < kMaxSamples && exactlyOneHolder < kOneHolderWanted; ++samples) {
            READ_OR_FAIL(src, snap);
            QCOMPARE(snap.count, nameByTid.size());
            int holders = 0;
            for (size_t i = 0; i < snap.count; ++i) {
                const ThreadStack& t = snap.threads[i];
                QVERIFY2(nameByTid.count(t.threadId), "a thread id the target did not report");
                const QString name = nameByTid[t.threadId];
                const bool isMain = t.status & ThreadStatus::MainThread;
                QCOMPARE(isMain, name == "main");
                QCOMPARE(bool(t.status & ThreadStatus::HasException), name == "in-except");
                if (name == "sleeper" || name == "in-except") // main may still be printing READY
                    QVERIFY2(!(t.status & ThreadStatus::OnCpu), qPrintable(name + " is ON_CPU"));
                QVERIFY(!t.frames.empty());
                const bool inWait =
                    reg.string(reg.frame(t.frames.front()).funcname) == std::string("wait");
                if (isMain && inWait && !(t.status & ThreadStatus::HasGil)) mainBlocked = true;
                if (t.status & ThreadStatus::HasGil) {
                    ++holders;
                    QVERIFY2(name.startsWith("contender") || (isMain && !mainBlocked),
                             qPrintable(name + " holds the GIL"));
                    if (t.status & ThreadStatus::OnCpu) ++holderOnCpu;
                }
            }
            QVERIFY(holders <= 1 || interpreter.minor >= 15); // <=3.14: one GIL read
            if (holders == 1) ++exactlyOneHolder;
        }
        QVERIFY2(
            exactlyOneHolder >= kOneHolderWanted,
            qPrintable(QString("one holder in only %1 of %2").arg(exactlyOneHolder).arg(samples)));
        QVERIFY2(holderOnCpu >= exactlyOneHolder / 2,
                 qPrintable(QString("the spinning GIL holder was ON_CPU in %1 of %2 samples")
                                .arg(holderOnCpu)
                                .arg(exactlyOneHolder)));
    }

    void gilRequested_data() { test::addInterpreterRows(test::findInterpreters()); }
    void gilRequested() {
        // Two spinning workers contend for the GIL while the main thread sleeps in
        // Event.wait(): the worker without the GIL waits for it, the main thread never does.
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "gil_contention.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), true);
        const QJsonObject threads = target.readyInfo()["threads"].toObject();
        const uint64_t mainTid = uint64_t(threads["main"].toInteger());
        // Right after READY the main thread may still wait for the GIL to come back from
        // its print(); once blocked in Event.wait() (leaf `wait`, neither holding, running
        // nor asking for the GIL) it sleeps on a lock outside the GIL for good.
        const auto mainBlocked = [&](const test::Snapshot& s) {
            for (size_t i = 0; i < s.count; ++i) {
                const ThreadStack& t = s.threads[i];
                if (t.threadId != mainTid) continue;
                const QStringList names = test::functionNames(*src, t);
                constexpr uint32_t busy = ThreadStatus::HasGil | ThreadStatus::OnCpu |
                                          ThreadStatus::GilRequested | ThreadStatus::Unknown;
                return leafIs(names, "wait") && !(t.status & busy);
            }
            return false;
        };
        READ_UNTIL_OR_FAIL(src, settled, mainBlocked);
        QVERIFY2(mainBlocked(settled), "the main thread never blocked in Event.wait()");
        // A worker that sleeps without the GIL can only be waiting for it (it never blocks
        // otherwise). One that is runnable but not running yet (on a busy machine, just
        // woken to take the GIL) is not reported as waiting (the kernel says "running"),
        // so only the sleeping ones are counted. How often a worker is seen asleep depends
        // on the machine's load, so sampling goes on until 50 sleeping workers were seen.
        constexpr int kSleepingWanted = 50, kMaxSamples = 100000;
        int samples = 0, workerWithoutGil = 0, workerSleeping = 0, workerRequesting = 0;
        for (; samples < kMaxSamples && workerSleeping < kSleepingWanted; ++samples) {
            READ_OR_FAIL(src, snap);
            for (size_t i = 0; i < snap.count; ++i) {
                const ThreadStack& t = snap.threads[i];
                const bool requested = t.status & ThreadStatus::GilRequested;
                if (t.threadId == mainTid) {
                    QVERIFY2(!requested, "the sleeping main thread is flagged GIL_REQUESTED");
                    continue;
                }
                if (t.status & ThreadStatus::HasGil) {
                    QVERIFY2(!requested, "the GIL holder is flagged GIL_REQUESTED");
                    continue;
                }
                ++workerWithoutGil;
                if (t.status & (ThreadStatus::OnCpu | ThreadStatus::Unknown)) continue;
                ++workerSleeping;
                if (requested) ++workerRequesting;
            }
            QThread::usleep(500);
        }
        qInfo("%s: a sleeping worker without the GIL was GIL_REQUESTED in %d of %d cases "
              "(%d without the GIL)",
              qPrintable(interpreter.label), workerRequesting, workerSleeping, workerWithoutGil);
        QVERIFY(workerWithoutGil >= samples / 2); // two spinning workers, one GIL
        QVERIFY2(workerSleeping >= kSleepingWanted, qPrintable(QString::number(workerSleeping)));
        // Not all: a worker that just dropped the GIL sleeps until the other one took it
        // (CPython's forced switch), without asking for it; 3.15's own per-thread flag
        // tells that wait apart, and the busier the machine the longer it lasts (78 % of
        // the sleeps were requests at load 10). Without the flag it would be none.
        QVERIFY2(workerRequesting * 2 >= workerSleeping,
                 qPrintable(QString("%1 of %2").arg(workerRequesting).arg(workerSleeping)));
    }

    void steadyStackTakesOneOrTwoReads_data() {
        test::addInterpreterRows(test::findInterpreters());
    }
    void steadyStackTakesOneOrTwoReads() {
        // "A handful of syscalls per sample": on a stack that sits still, 3.11+ need one
        // process_vm_readv per sample (everything read ahead with the thread state) and
        // 3.8-3.10 two (the remembered frame chain, then the code objects it holds).
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "deep30.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), false);
        // Past its READY print, the target sits in its 30-frame loop for good.
        auto deep30 = [](const test::Snapshot& s) {
            return s.count == 1 && s.threads[0].frames.size() == 30;
        };
        READ_UNTIL_OR_FAIL(src, steady, deep30);
        QString error;
        const double perSample = syscallsPerSteadySample(*src, deep30, &error);
        QVERIFY2(perSample >= 0, qPrintable(error));
        qInfo("%s: %.2f process_vm_readv per 30-frame sample", qPrintable(interpreter.label),
              perSample);
        QVERIFY2(perSample <= (interpreter.minor >= 11 ? 1.1 : 2.1),
                 qPrintable(QString::number(perSample)));
    }

    void steadyThreadsTakeOneOrTwoReads_data() {
        test::addInterpreterRows(test::findInterpreters());
    }
    void steadyThreadsTakeOneOrTwoReads() {
        // With -a every thread is read ahead too: nine threads whose stacks sit still
        // (four spinning, four sleeping, the main one waiting) cost one process_vm_readv
        // per sample on 3.11+; on 3.8-3.10 one, plus one per thread (its remembered chain).
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "eight_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), true);
        // Steady once every thread is in its loop: spinners in spinner(), sleepers in
        // sleeper() (time.sleep is C), the main thread in Event.wait().
        auto nine = [&](const test::Snapshot& s) {
            if (s.count != 9) return false;
            for (size_t i = 0; i < s.count; ++i) {
                const QStringList names = test::functionNames(*src, s.threads[i]);
                if (!leafIs(names, "spinner") && !leafIs(names, "sleeper") &&
                    !leafIs(names, "wait"))
                    return false;
            }
            return true;
        };
        READ_UNTIL_OR_FAIL(src, all, nine);
        QVERIFY2(nine(all), "the nine threads never all reached their loops");
        QString error;
        const double perSample = syscallsPerSteadySample(*src, nine, &error);
        QVERIFY2(perSample >= 0, qPrintable(error));
        qInfo("%s: %.2f process_vm_readv per 9-thread sample", qPrintable(interpreter.label),
              perSample);
        QVERIFY2(perSample <= (interpreter.minor >= 11 ? 1.1 : 1 + 9 + 0.5),
                 qPrintable(QString::number(perSample)));
    }

    void threadChurn_data() { test::addInterpreterRows(test::findInterpreters()); }
    void threadChurn() {
        // Threads come and go faster than we sample, so thread states and frame chunks
        // read ahead from the last sample are often freed or reused by the next one. Every
        // stack that is reported must still be a real one (a frame of this script or of
        // threading.py); reads that cannot be made consistent are counted errors.
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "thread_churn.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), true);
        const uint64_t mainTid = uint64_t(target.readyInfo()["main"].toInteger());
        std::vector<ThreadStack> threads;
        size_t count = 0;
        int ok = 0, errors = 0;
        size_t workerStacks = 0;
        auto& reg = src->registry();
        for (int s = 0; s < 1000; ++s) {
            QThread::usleep(500); // over half a second or more: workers come and go meanwhile
            const ReadOutcome r = src->read(threads, count);
            QVERIFY2(r != ReadOutcome::ProcessEnded,
                     qPrintable(QString::fromStdString(src->why())));
            if (r != ReadOutcome::Ok) {
                ++errors;
                continue;
            }
            ++ok;
            bool sawMain = false;
            for (size_t i = 0; i < count; ++i) {
                if (threads[i].threadId == mainTid)
                    sawMain = true;
                else if (!threads[i].frames.empty())
                    ++workerStacks;
                for (FrameId id : threads[i].frames) {
                    const QString file = QString::fromStdString(reg.string(reg.frame(id).filename));
                    // threading.py uses _weakrefset.py for its shutdown locks; _ready.py
                    // prints READY and may still be on the stack at first.
                    QVERIFY2(
                        file.endsWith(QLatin1String("thread_churn.py")) ||
                            file.endsWith(QLatin1String("_ready.py")) ||
                            file.endsWith(QLatin1String("threading.py")) ||
                            file.endsWith(QLatin1String("_weakrefset.py")),
                        qPrintable(file + QLatin1Char(' ') +
                                   QString::fromStdString(reg.string(reg.frame(id).funcname))));
                }
            }
            QVERIFY(sawMain);
        }
        qInfo("%s: %d consistent samples, %d errors, %zu worker stacks",
              qPrintable(interpreter.label), ok, errors, workerStacks);
        QVERIFY(ok >= 500);
        QVERIFY(workerStacks > 0);
    }

    void recursion_data() {
        QTest::addColumn<Interpreter>("interpreter");
        QTest::addColumn<int>("depth");
        for (const Interpreter& in : test::findInterpreters()) {
            QTest::newRow(qPrintable(in.label + " 1000")) << in << 1000;
            QTest::newRow(qPrintable(in.label + " 2000")) << in << 2000;
        }
    }
    void recursion() {
        QFETCH(Interpreter, interpreter);
        QFETCH(int, depth);
        TargetOptions options;
        options.args = QStringList{QString::number(depth)};
        TargetProcess target(interpreter, "recursion.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), false);
        const size_t want = std::min<size_t>(size_t(depth) + 1, kCpythonDepthCap);
        READ_UNTIL_OR_FAIL(src, snap, [&](const test::Snapshot& s) {
            return s.count == 1 && s.threads[0].frames.size() == want &&
                   test::functionNames(*src, s.threads[0]).front() == "recurse";
        });
        const ThreadStack& t = snap.threads[0];
        QCOMPARE(t.frames.size(), want);
        const QStringList names = test::functionNames(*src, t);
        QCOMPARE(names.front(), QString("recurse"));
        // Deeper than the cap: the leaf side and the 16 frames nearest the root stay, the
        // middle is one synthetic frame, and the stack is still rooted at <module>.
        QCOMPARE(names.back(), QString("<module>"));
        if (depth + 1 <= int(kCpythonDepthCap)) {
            QCOMPARE(names.count("recurse"), depth);
            return;
        }
        const int leafKept = int(kCpythonDepthCap) - 1 - 16;
        QCOMPARE(names.count("recurse"), int(kCpythonDepthCap) - 2);
        QCOMPARE(
            names[leafKept],
            QStringLiteral("<truncated: %1 frames>").arg(depth + 1 - int(kCpythonDepthCap) + 1));
    }

    void nonAsciiNames_data() { test::addInterpreterRows(test::findEveryBuild()); }
    void nonAsciiNames() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetOptions options;
        options.args = QStringList{dir.path()};
        options.bindDirs = QStringList{dir.path()};
        TargetProcess target(interpreter, "unicode_names.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), false);
        READ_UNTIL_OR_FAIL(src, snap, [&](const test::Snapshot& s) {
            return s.count == 1 && !s.threads[0].frames.empty() &&
                   test::functionNames(*src, s.threads[0]).front() != "ready";
        });
        const ThreadStack& t = snap.threads[0];
        QVERIFY(!t.frames.empty());
        auto& reg = src->registry();
        const FrameInfo& leaf = reg.frame(t.frames[0]);
        QCOMPARE(QString::fromStdString(reg.string(leaf.funcname)),
                 QString::fromUtf8("función_π_λ"));
        QCOMPARE(QFileInfo(QString::fromStdString(reg.string(leaf.filename))).fileName(),
                 QString::fromUtf8("módulo_ñ_東京.py"));
        QCOMPARE(QString::fromStdString(reg.string(leaf.filename)),
                 target.readyInfo()["file"].toString());
    }

    void gcFrame_data() { test::addInterpreterRows(test::findEveryBuild()); }
    void gcFrame() {
        QFETCH(Interpreter, interpreter);
        const QString here = test::sourceDir() + QStringLiteral("/tests/integration/remote");
        TargetOptions options;
        options.bindDirs = QStringList{here};
        TargetProcess target(interpreter, here + "/gc_loop.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), false);
        int withGc = 0;
        QElapsedTimer timer;
        timer.start();
        while (withGc == 0 && timer.elapsed() < 60000) {
            QThread::msleep(1);
            READ_OR_FAIL(src, snap);
            const QStringList names = test::functionNames(*src, snap.threads[0]);
            if (names.value(0) == "<GC>") {
                ++withGc;
                const FrameInfo& f = src->registry().frame(snap.threads[0].frames[0]);
                QCOMPARE(src->registry().string(f.filename), std::string("~"));
                QVERIFY(names.contains("<module>"));
            }
        }
        QVERIFY2(withGc > 0, "no <GC> frame in 20 s of sampling a gc.collect() loop");
    }

    void processEnded() {
        const auto all = test::findInterpreters();
        GILSCOPE_REQUIRE_INTERPRETERS(all);
        TargetProcess target(all.back(), "three_deep.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        OPEN_OR_FAIL(src, target.pid(), true);
        READ_OR_FAIL(src, snap);
        target.terminate();
        std::vector<ThreadStack> stacks;
        size_t count = 0;
        QCOMPARE(src->read(stacks, count), ReadOutcome::ProcessEnded);
        QCOMPARE(src->read(stacks, count), ReadOutcome::ProcessEnded);
    }

    void openErrors() {
        // A pid that cannot exist (above pid_max).
        auto missing = openLiveProcess(1 << 30, {});
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::ProcessNotFound);
        // Ourselves: a C++ program, not Python.
        auto notPython = openLiveProcess(int(QCoreApplication::applicationPid()), {});
        QVERIFY(!notPython);
        QCOMPARE(notPython.error().kind, ErrorKind::NotPython);
        QVERIFY2(QString::fromStdString(notPython.error().message).contains("gilscope ps"),
                 notPython.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestRemoteLive)
#include "test_remote_live.moc"
