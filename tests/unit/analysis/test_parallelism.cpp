// Parallelism and stop-the-world pauses (issue 49) from hand-made samples: how many
// threads ran Python per tick, capped at the CPUs; a GIL's waits are no pauses; a free-
// threaded build's suspended threads are, with the one attached thread as requester;
// samples out of time order count as in order; and the reports built on them.
#include "core/analysis/parallelism.h"
#include "core/analysis/profile_model.h"
#include "core/analysis/scaling_report.h"
#include "core/sample/thread_status.h"
#include "core/target/proc_dir.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

#include <numeric>

using namespace gilscope;
using gilscope::test::SyntheticFeed;
namespace TS = gilscope::ThreadStatus;

namespace {

constexpr uint64_t kT0 = 5'000'000;
constexpr uint32_t kRun = TS::HasGil | TS::OnCpu;

RecordingInfo info(bool freeThreaded, uint32_t cpus) {
    RecordingInfo i;
    i.sampleIntervalUs = 1000;
    i.freeThreaded = freeThreaded;
    i.cpus = cpus;
    i.pythonMajor = 3;
    i.pythonMinor = 13;
    return i;
}

// Four threads for 300 ticks, all running Python, except in ticks [100, 120) and
// [200, 205), when thread 1 collects and threads 2-4 are stopped (or wait for a GIL).
void feedPauses(SampleSink& sink, const RecordingInfo& i) {
    SyntheticFeed feed(sink, i);
    const FrameId work = feed.frame("app.py", 3, "work"),
                  collect = feed.frame("gc_loop.py", 7, "collect", kNoOpcode, 5);
    const auto paused = [](uint64_t k) { return (k >= 100 && k < 120) || (k >= 200 && k < 205); };
    for (uint64_t k = 0; k < 300; ++k) {
        const uint64_t tick = k;
        const uint64_t t = kT0 + tick * 1000;
        for (uint64_t tid = 1; tid <= 4; ++tid) {
            const bool stopped = paused(tick) && tid != 1;
            feed.add(tid, stopped ? TS::GilRequested : kRun,
                     {paused(tick) && tid == 1 ? collect : work}, {t});
        }
    }
    sink.finish({});
}

} // namespace

class TestParallelism : public QObject {
    Q_OBJECT
private slots:
    void freeThreadedPausesAndCap() {
        ProfileModel model;
        feedPauses(model, info(true, 2));
        auto par = model.parallelism({});
        QVERIFY(par);
        const ParallelismSummary& p = par->summary;
        QCOMPARE(p.ticks, uint64_t(300));
        QCOMPARE(p.cpus, 2u);
        QCOMPARE(p.ceiling, 2u);
        // 275 ticks of four running (capped at two), 25 of one.
        QCOMPARE(p.meanRunning, (275.0 * 2 + 25) / 300);
        QCOMPARE(p.meanWanting, 4.0);
        QCOMPARE(p.ticksAtCeiling, uint64_t(275));
        QCOMPARE(p.ticksByRunning.size(), size_t(3));
        QCOMPARE(p.ticksByRunning[1], uint64_t(25));
        QCOMPARE(p.lateSamples, uint64_t(0));
        QCOMPARE(par->pauses.size(), size_t(2));
        const StopTheWorldPause& first = par->pauses[0];
        QCOMPARE(first.firstUs, kT0 + 100'000);
        QCOMPARE(first.lastUs, kT0 + 119'000);
        QCOMPARE(first.ticks, uint64_t(20));
        QCOMPARE(first.maxStopped, 3u);
        QCOMPARE(first.stoppedSamples, uint64_t(60));
        QVERIFY(first.requester);
        QCOMPARE(par->pauses[1].ticks, uint64_t(5));

        // The report names the thread and the line it asked from; lost time = samples.
        auto report = pauseReport(model, {}, 0);
        QVERIFY(report);
        QCOMPARE(report->pauses, size_t(2));
        QCOMPARE(report->rows[0].requesterTid, uint64_t(1));
        QCOMPARE(QString::fromStdString(report->rows[0].requesterFrame),
                 QStringLiteral("gc_loop.py:7(collect)"));
        QCOMPARE(report->rows[0].durationMs, 20.0);
        QCOMPARE(report->rows[0].lostMs, 60.0);
        QCOMPARE(report->lostMs, 75.0);
        QVERIFY(QString::fromStdString(pauseText(*report)).contains("asked by"));

        // A range and a thread filter see only what they keep.
        ProfileFilter late;
        late.hasRange = true;
        late.startUs = kT0 + 150'000;
        late.endUs = kT0 + 300'000;
        auto tail = model.parallelism(late);
        QVERIFY(tail);
        QCOMPARE(tail->pauses.size(), size_t(1));
        ProfileFilter one;
        one.threads = {2};
        auto alone = model.parallelism(one);
        QVERIFY(alone);
        QCOMPARE(alone->summary.meanWanting, 1.0);
        QCOMPARE(alone->pauses.size(), size_t(2)); // its own stops: no requester seen
        QVERIFY(!alone->pauses[0].requester);
    }

    // Under a GIL the same bits are GIL waits: no pause, and one thread at a time at most.
    void gilWaitsAreNoPauses() {
        ProfileModel model;
        feedPauses(model, info(false, 8));
        auto par = model.parallelism({});
        QVERIFY(par);
        QVERIFY(par->pauses.empty());
        QCOMPARE(par->summary.ceiling, 1u);
        auto report = pauseReport(model, {}, 0);
        QVERIFY(report);
        QVERIFY(QString::fromStdString(pauseText(*report)).contains("with a GIL"));
    }

    // A replay far out of time order (every tick backwards) is counted as in order:
    // the tally holds ticks back before it counts them.
    void outOfOrderTicksCountOnce() {
        ParallelismTally tally(0, true, 1000);
        for (uint64_t k = 300; k-- > 0;) {
            const bool paused = (k >= 100 && k < 120) || (k >= 200 && k < 205);
            for (uint16_t thread = 0; thread < 4; ++thread)
                tally.add(kT0 + k * 1000, paused && thread ? TS::GilRequested : kRun,
                          ThreadIndex{thread}, StackId{1});
        }
        tally.finish();
        const ParallelismSummary p = tally.summary();
        QCOMPARE(p.ticks, uint64_t(300));
        QCOMPARE(p.lateSamples, uint64_t(0));
        QCOMPARE(tally.pauses().size(), size_t(2));
        QCOMPARE(tally.pauses()[0].firstUs, kT0 + 100'000);
        QCOMPARE(p.ceiling, 4u); // no CPU count: the most that wanted to run
        QCOMPARE(p.meanRunning, (275.0 * 4 + 25) / 300);
    }

    // A busy machine's sampler misses ticks: a pause's length and the time it took are the
    // time its ticks stand for (each to the next, at most two intervals), not their count.
    void missedTicksKeepPauseLength() {
        ParallelismTally tally(0, true, 1000);
        for (uint64_t k = 0; k < 60; ++k) {
            if (k >= 20 && k < 40 && k % 2) continue; // every other tick of the pause missed
            const bool paused = k >= 20 && k < 40;
            for (uint16_t thread = 0; thread < 3; ++thread)
                tally.add(kT0 + k * 1000, paused && thread ? TS::GilRequested : kRun,
                          ThreadIndex{thread}, StackId{1});
        }
        tally.finish();
        QCOMPARE(tally.pauses().size(), size_t(1));
        const StopTheWorldPause& p = tally.pauses()[0];
        QCOMPARE(p.ticks, uint64_t(10));
        QCOMPARE(p.durationUs, uint64_t(20'000));
        QCOMPARE(p.lostUs, uint64_t(40'000)); // two threads stopped throughout
    }

    // The tally alone: a sample whose tick was counted already is told, not merged; one
    // that neither ran nor wanted to (a sleeping thread's long run, replayed) changes no
    // count and is dropped.
    void lateSampleIsCounted() {
        ParallelismTally tally(0, true, 1, 16);
        for (uint64_t k = 0; k < 100; ++k)
            tally.add(k, kRun, ThreadIndex{0}, StackId{0});
        tally.add(0, kRun, ThreadIndex{1}, StackId{0}); // tick 0 was counted
        for (uint64_t k = 0; k < 100; ++k)
            tally.add(k, 0, ThreadIndex{2}, StackId{0}); // asleep: most ticks counted
        tally.finish();
        QCOMPARE(tally.summary().lateSamples, uint64_t(1));
        QCOMPARE(tally.summary().ticks, uint64_t(101));
        QCOMPARE(tally.summary().meanRunning, 1.0);
    }

    // --scaling: each function's parts add up to its samples, and say what its threads did.
    void scalingPartsAddUp() {
        ProfileModel model;
        feedPauses(model, info(true, 2));
        auto report = scalingReport(model, {}, 0);
        QVERIFY(report);
        QVERIFY(report->freeThreaded);
        for (const ScalingRow& row : report->rows) {
            const uint64_t sum = std::accumulate(row.parts.begin(), row.parts.end(), uint64_t(0));
            QCOMPARE(sum, row.total);
        }
        const auto work = std::find_if(report->rows.begin(), report->rows.end(),
                                       [](const ScalingRow& r) { return r.function == "work"; });
        QVERIFY(work != report->rows.end());
        QCOMPARE(work->parts[kStoppedOrGilWait], uint64_t(75)); // 25 ticks x 3 threads
        QCOMPARE(work->parts[kRanPython], uint64_t(work->total - 75));
        QVERIFY(QString::fromStdString(scalingText(*report)).contains("stopped"));
    }

    void allowedCpusParse() {
        using gilscope::target::countAllowedCpus;
        QCOMPARE(countAllowedCpus("Name:\tx\nCpus_allowed_list:\t0-3,8,10-11\nMems: 0\n"), 7u);
        QCOMPARE(countAllowedCpus("Cpus_allowed_list:\t5\n"), 1u);
        QCOMPARE(countAllowedCpus("Cpus_allowed_list:\t3-1\n"), 0u);
        QCOMPARE(countAllowedCpus("Cpus_allowed_list:\tx\n"), 0u);
        QCOMPARE(countAllowedCpus("Cpus_allowed: ff\n"), 0u);
        QCOMPARE(countAllowedCpus(""), 0u);
    }
};

QTEST_GUILESS_MAIN(TestParallelism)
#include "test_parallelism.moc"
