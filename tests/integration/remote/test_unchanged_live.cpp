// UnchangedStacks and StillProcess on real interpreters: a thread whose stack changes at a
// known rhythm while it mostly sleeps (tests/targets/switching_waiter.py) is never served a
// stack it has left, threads at rest are served without a walk, and a process whose every
// thread sleeps is not read again. On every interpreter present.
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
        test::addInterpreterRows(test::findInterpreters());
    }
    void aStackThatChangedIsNeverServed() {
        QFETCH(Interpreter, interpreter);
        checkNoStalePhase(interpreter, false, false);
    }

    // The same with every thread mostly asleep and ReadOptions::stillProcesses: the
    // waiter's 2 ms naps leave the whole process still between reads about 1 ms apart.
    // Through both of StillProcess' sources: a perf event's page, and /proc's schedstat
    // (where the kernel refuses perf events).
    void aStillProcessIsNeverServedStale_data() {
        test::addInterpreterRows(test::findInterpreters());
    }
    void aStillProcessIsNeverServedStale() {
        QFETCH(Interpreter, interpreter);
        checkNoStalePhase(interpreter, true, true);
        checkNoStalePhase(interpreter, true, false);
    }

    // --mode cpu with stillProcesses sees bursts shorter than a scheduler tick: read side
    // by side with a reader without it, it finds the worker in burst() about as often.
    void burstsShorterThanATickAreSeen_data() {
        test::addInterpreterRows(test::findInterpreters());
    }
    void burstsShorterThanATickAreSeen() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "short_bursts.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto worker = uint64_t(target.readyInfo().value("worker").toInteger());
        ReadOptions options;
        options.allThreads = true;
        options.mode = ProfilingMode::Cpu;
        auto plain = openLiveProcess(int(target.pid()), options);
        options.stillProcesses = true;
        auto still = openLiveProcess(int(target.pid()), options);
        QVERIFY2(plain && still, "cannot open the target");
        auto* stillReader = dynamic_cast<remote::LiveProcessReader*>(&**still);
        QVERIFY(stillReader);
        // In burst(): the leaf frame is burst (a C call's frame is not a Python frame).
        auto inBurst = [&](StackSource& src, const test::Snapshot& snap) {
            for (size_t i = 0; i < snap.count; ++i)
                if (snap.threads[i].threadId == worker && !snap.threads[i].skipped) {
                    const QStringList names = test::functionNames(src, snap.threads[i]);
                    return !names.isEmpty() && names[0].endsWith(QLatin1String("burst"));
                }
            return false;
        };
        int seenPlain = 0, seenStill = 0, reads = 0;
        test::Snapshot a, b;
        QElapsedTimer clock;
        clock.start();
        while (seenPlain < 200) {
            QVERIFY2(clock.elapsed() < 120000, "the worker's bursts were not seen in 120 s");
            QString error;
            QVERIFY2(test::readOnce(**still, a, &error), qPrintable(error));
            QVERIFY2(test::readOnce(**plain, b, &error), qPrintable(error));
            seenStill += inBurst(**still, a);
            seenPlain += inBurst(**plain, b);
            ++reads;
            QThread::usleep(300);
        }
        const uint64_t stillSamples = stillReader->samplesStill();
        const uint64_t fromSwitches = stillReader->statesFromSwitches();
        qInfo("%s: %d paired reads, in burst(): %d without stillProcesses, %d with; %llu "
              "samples still, %llu thread states from switch records",
              qPrintable(interpreter.label), reads, seenPlain, seenStill,
              static_cast<unsigned long long>(stillSamples),
              static_cast<unsigned long long>(fromSwitches));
        // The two readers look ~20 us apart, so they should agree; a clock that moves only
        // at a tick would see almost none of these 0.5 ms bursts.
        QVERIFY(seenStill >= seenPlain * 7 / 10);
        QVERIFY(stillSamples > 0);
        // Where perf events are allowed, --mode cpu learns where threads are from them.
        if (stillReader->threadsWatchedByPerf() > 0) QVERIFY(fromSwitches > 0);
    }

private:
    void checkNoStalePhase(const Interpreter& interpreter, bool still, bool byPerf) {
        test::TargetOptions targetOptions;
        if (still) targetOptions.args = {QStringLiteral("--quiet-main")};
        TargetProcess target(interpreter, "switching_waiter.py", targetOptions);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto waiter = uint64_t(target.readyInfo().value("waiter").toInteger());
        ReadOptions options;
        options.allThreads = true;
        options.stillProcesses = still;
        options.stillByPerf = byPerf;
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
        const uint64_t stillSamples = live->samplesStill();
        const size_t byPerfThreads = live->threadsWatchedByPerf();

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
        qInfo("%s%s: %zu waiter samples (a %d, b %d, c %d), %d checked against %zu phase "
              "starts, %d stale; %llu stacks served unchanged, %llu samples still",
              qPrintable(interpreter.label),
              !still          ? ""
              : byPerfThreads ? " (still processes, perf)"
                              : " (still processes, schedstat)",
              samples.size(), counts[0], counts[1], counts[2], checked, starts.size(), stale,
              static_cast<unsigned long long>(served),
              static_cast<unsigned long long>(stillSamples));
        QVERIFY(checked > 500);
        QCOMPARE(stale, 0);
        // Every phase was seen, and the shortcut was taken (threads at rest; the waiter
        // between its wake-ups).
        QVERIFY(counts[0] > 0 && counts[1] > 0 && counts[2] > 0);
        if (still) {
            QVERIFY(stillSamples > 0); // the naps were seen as still processes
            if (!byPerf) QCOMPARE(byPerfThreads, size_t(0));
        } else
            QVERIFY(served > 0);
    }
};

QTEST_GUILESS_MAIN(TestUnchangedLive)
#include "test_unchanged_live.moc"
