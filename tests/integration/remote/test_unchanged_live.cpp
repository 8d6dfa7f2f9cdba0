// UnchangedStacks on real interpreters: a thread whose stack changes at a known rhythm
// while it mostly sleeps (tests/targets/switching_waiter.py) is never served a stack it
// has left, and threads at rest are served without a walk. The same with the host
// agent's idleProcessShortcut, where a process that used no CPU is not read again (its
// last sample stands). On every interpreter present.
#include "core/remote/live_process_reader.h"
#include "core/remote/live_stack_source.h"
#include "tests/integration/remote/remote_test_helpers.h"
#include "tests/support/python_interpreters.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QTest>
#include <QThread>

#include <time.h>
#include <vector>

using namespace gilscope;
using gilscope::test::Interpreter;
using gilscope::test::TargetProcess;

namespace {

int64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The waiter's phase in one sample: pause() under phase_a/b/c (3.8-3.10 plain names,
// 3.11+ may qualify them), or 0 when its stack is elsewhere (printing, between phases).
char phaseOf(const QStringList& namesLeafFirst) {
    if (namesLeafFirst.size() < 2 || !namesLeafFirst[0].endsWith(QLatin1String("pause"))) return 0;
    for (char c : {'a', 'b', 'c'})
        if (namesLeafFirst[1].endsWith(QLatin1String("phase_") + QLatin1Char(c))) return c;
    return 0;
}

struct Sample {
    int64_t beforeNs, afterNs; // CLOCK_MONOTONIC around the read
    char phase;
};
struct PhaseStart {
    int64_t ns;
    char phase;
};

// The previous phase of `p` in the target's rotation a -> b -> c -> a.
char previousOf(char p) {
    return p == 'a' ? 'c' : char(p - 1);
}

} // namespace

class TestUnchangedLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void aStackThatChangedIsNeverServed_data() {
        QTest::addColumn<Interpreter>("interpreter");
        QTest::addColumn<bool>("idleShortcut");
        for (const Interpreter& in : test::findInterpreters()) {
            QTest::newRow(qPrintable(in.label)) << in << false;
            QTest::newRow(qPrintable(in.label + QStringLiteral(", idle-process shortcut")))
                << in << true;
        }
    }
    void aStackThatChangedIsNeverServed() {
        QFETCH(Interpreter, interpreter);
        QFETCH(bool, idleShortcut);
        TargetProcess target(interpreter, "switching_waiter.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto waiter = uint64_t(target.readyInfo().value("waiter").toInteger());
        ReadOptions options;
        options.allThreads = true;
        options.idleProcessShortcut = idleShortcut;
        auto opened = openLiveProcess(int(target.pid()), options);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        StackSource& src = **opened;
        auto* live = dynamic_cast<remote::LiveProcessReader*>(&src);
        QVERIFY(live);

        // Samples about 1 ms apart until 1,000 show the waiter in a phase (over ~60
        // phases of 30 ms; longer under load).
        std::vector<Sample> samples;
        QElapsedTimer clock;
        clock.start();
        test::Snapshot snap;
        while (samples.size() < 1000) {
            QVERIFY2(clock.elapsed() < 120000, "the waiter's phases were not seen in 120 s");
            const int64_t before = monotonicNs();
            QString error;
            QVERIFY2(test::readOnce(src, snap, &error), qPrintable(error));
            const int64_t after = monotonicNs();
            for (size_t i = 0; i < snap.count; ++i)
                if (snap.threads[i].threadId == waiter)
                    if (const char p = phaseOf(test::functionNames(src, snap.threads[i])))
                        samples.push_back({before, after, p});
            QThread::usleep(1000);
        }
        const uint64_t served = live->stacksUnchanged();
        const uint64_t reused = live->samplesReused();

        // When each phase began, from the target's own clock (the same CLOCK_MONOTONIC).
        std::vector<PhaseStart> starts;
        while (starts.empty() || starts.back().ns < samples.back().afterNs) {
            const std::optional<QString> line = target.readLine(30000);
            QVERIFY2(line, "the target stopped printing its phases");
            const QStringList f = line->split(QLatin1Char(' '));
            if (f.size() == 3 && f[0] == QLatin1String("PHASE"))
                starts.push_back({f[2].toLongLong(), f[1].at(0).toLatin1()});
        }

        // A sample read after phase P began that shows the phase before P was served
        // stale: that phase's frames had been popped before P's start was stamped.
        int stale = 0, checked = 0, counts[3] = {};
        for (const Sample& s : samples) {
            ++counts[s.phase - 'a'];
            const PhaseStart* current = nullptr;
            for (const PhaseStart& p : starts)
                if (p.ns <= s.beforeNs) current = &p;
            if (!current) continue; // before the first phase the target reported
            ++checked;
            if (s.phase == previousOf(current->phase)) ++stale;
        }
        qInfo("%s: %zu waiter samples (a %d, b %d, c %d), %d checked against %zu phase starts, "
              "%d stale; %llu stacks served unchanged, %llu samples of the idle process reused",
              qPrintable(interpreter.label), samples.size(), counts[0], counts[1], counts[2],
              checked, starts.size(), stale, static_cast<unsigned long long>(served),
              static_cast<unsigned long long>(reused));
        QVERIFY(checked > 500);
        QCOMPARE(stale, 0);
        // Every phase was seen, and the shortcut was taken (threads at rest; the waiter
        // between its wake-ups).
        QVERIFY(counts[0] > 0 && counts[1] > 0 && counts[2] > 0);
        QVERIFY(served > 0);
        // How often the process was idle between reads depends on the machine's load (its
        // main thread keeps the GIL busy): idleProcessIsReused counts reuses on a target
        // that is idle whatever the load. Without the shortcut none is reused.
        if (!idleShortcut) QCOMPARE(reused, uint64_t{0});
    }

    // Wall mode with the shortcut on a process idle but for one worker's 5 ms in 100 ms
    // (mostly_idle.py): most reads reuse the last sample, and a reused sample is the last
    // one to the frame, every thread off the CPU.
    void idleProcessIsReused_data() { test::addInterpreterRows(test::findInterpreters()); }
    void idleProcessIsReused() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "mostly_idle.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        ReadOptions options;
        options.allThreads = true;
        options.idleProcessShortcut = true;
        auto opened = openLiveProcess(int(target.pid()), options);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        StackSource& src = **opened;
        auto* live = dynamic_cast<remote::LiveProcessReader*>(&src);
        QVERIFY(live);
        test::Snapshot snap;
        std::vector<std::vector<FrameId>> last;
        int reads = 0, reusedReads = 0;
        for (; reads < 300; ++reads) {
            const uint64_t before = live->samplesReused();
            QString error;
            QVERIFY2(test::readOnce(src, snap, &error), qPrintable(error));
            std::vector<std::vector<FrameId>> now;
            for (size_t i = 0; i < snap.count; ++i)
                now.push_back(snap.threads[i].frames);
            if (live->samplesReused() != before) {
                ++reusedReads;
                QCOMPARE(now, last);
                for (size_t i = 0; i < snap.count; ++i)
                    QVERIFY(!(snap.threads[i].status & ThreadStatus::OnCpu));
            }
            QVERIFY(snap.count >= 17); // the idle threads and the worker, at least
            last = std::move(now);
            QThread::usleep(1000);
        }
        qInfo("%s: %d of %d reads reused the last sample", qPrintable(interpreter.label),
              reusedReads, reads);
        // The worker uses at most ~5% of the time (more wall time under load, not more
        // CPU): far more than a quarter of 1 ms gaps see no CPU used.
        QVERIFY(reusedReads > reads / 4);
    }

    // --mode cpu with the shortcut: ticks where the process ran but no thread is on a CPU
    // are not read, yet a thread that starts then (late_worker.py's spinner, a second after
    // READY, while the ticker sleeps) is found, and only threads on a CPU are sampled.
    void cpuModeShortcutFindsANewThread_data() {
        test::addInterpreterRows(test::findInterpreters());
    }
    void cpuModeShortcutFindsANewThread() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "late_worker.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        ReadOptions options;
        options.allThreads = true;
        options.mode = ProfilingMode::Cpu;
        options.idleProcessShortcut = true;
        auto opened = openLiveProcess(int(target.pid()), options);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        StackSource& src = **opened;
        auto* live = dynamic_cast<remote::LiveProcessReader*>(&src);
        QVERIFY(live);
        QElapsedTimer clock;
        clock.start();
        test::Snapshot snap;
        int spinning = 0, bursts = 0;
        while (spinning < 50) {
            QVERIFY2(clock.elapsed() < 60000, "the late spinner was not sampled in 60 s");
            QString error;
            QVERIFY2(test::readOnce(src, snap, &error), qPrintable(error));
            for (size_t i = 0; i < snap.count; ++i) {
                QVERIFY(snap.threads[i].status & ThreadStatus::OnCpu);
                const QStringList names = test::functionNames(src, snap.threads[i]);
                if (names.join(QLatin1Char(' ')).contains(QLatin1String("late_spin"))) ++spinning;
                if (names.join(QLatin1Char(' ')).contains(QLatin1String("burst"))) ++bursts;
            }
            QThread::usleep(1000);
        }
        qInfo("%s: late spinner in %d samples, ticker bursts in %d; %llu reads skipped with "
              "nothing on a CPU, %llu idle",
              qPrintable(interpreter.label), spinning, bursts,
              static_cast<unsigned long long>(live->samplesNothingOnCpu()),
              static_cast<unsigned long long>(live->samplesReused()));
        // The second before the spinner: the ticker's sleeps (idle process) and the ticks
        // after a burst (it ran, now sleeps) both came up.
        QVERIFY(live->samplesNothingOnCpu() > 0);
        QVERIFY(live->samplesReused() > 0);
    }
};

QTEST_GUILESS_MAIN(TestUnchangedLive)
#include "test_unchanged_live.moc"
