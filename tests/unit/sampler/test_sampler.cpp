// Scheduler tests run on a fake clock: deadlines, skipped ticks, duration and
// target-exit stops are checked to the microsecond, in no real time. Two tests use
// the real clock, for the cross-thread statistics and a prompt stop.
#include "core/sampler/sampler.h"
#include "core/sampler/tick_waiter.h"
#include "scripted_stack_source.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <limits>
#include <thread>

using namespace gilscope;
using namespace gilscope::test;

namespace {

constexpr uint64_t kStart = 1000000;

FrameId makeFrame(FrameRegistry& r, const std::string& file, const std::string& func, int line) {
    FrameInfo f;
    f.filename = r.internString(file);
    f.funcname = r.internString(func);
    f.line = f.endLine = line;
    return r.internFrame(f);
}

ReadOutcome endAfter(uint64_t n, uint64_t limit) {
    return n >= limit ? ReadOutcome::ProcessEnded : ReadOutcome::Ok;
}

} // namespace

class TestSampler : public QObject {
    Q_OBJECT
private slots:
    void deadlinesDoNotDrift() {
        FakeClock clock(kStart);
        // Each read costs 137 µs: a relative "sleep(interval)" scheduler would drift.
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 137; }, [](uint64_t n) { return endAfter(n, 1000); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        QCOMPARE(sink.timestamps.size(), size_t(1000));
        for (size_t k = 0; k < sink.timestamps.size(); ++k)
            QCOMPARE(sink.timestamps[k], kStart + k * 1000);
        const SamplerStats st = sampler.stats();
        QCOMPARE(st.missed, uint64_t(0));
        QCOMPARE(st.minIntervalUs, 1000.0);
        QCOMPARE(st.maxIntervalUs, 1000.0);
        QCOMPARE(st.meanIntervalUs, 1000.0);
        QCOMPARE(st.okTicks, uint64_t(1000));
        QVERIFY(!st.running);
        QCOMPARE(sink.begins, 1);
        QCOMPARE(sink.finishes, 1);
        QCOMPARE(sink.outOfOrder, 0);
        QCOMPARE(sink.info.pid, 4242);
        QCOMPARE(sink.info.startTimeUs, kStart);
        QCOMPARE(int(sink.info.pythonMinor), 13);
    }

    void fallingBehindSkipsTicksInsteadOfBursting() {
        FakeClock clock(kStart);
        // Read 5 stalls for 3.5 ms: deadlines 6000 and 7000 pass unread.
        ScriptedStackSource source(
            &clock, [](uint64_t n) { return n == 5 ? 3500 : 10; },
            [](uint64_t n) { return endAfter(n, 20); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        const std::vector<uint64_t> expectedHead = {0,    1000, 2000, 3000, 4000,
                                                    5000, 8500, 9000, 10000};
        for (size_t i = 0; i < expectedHead.size(); ++i)
            QCOMPARE(sink.timestamps[i] - kStart, expectedHead[i]);
        // Never two reads for one deadline: after the late read, back on the grid.
        for (size_t i = 7; i < sink.timestamps.size(); ++i)
            QCOMPARE((sink.timestamps[i] - kStart) % 1000, uint64_t(0));
        const SamplerStats st = sampler.stats();
        QCOMPARE(st.missed, uint64_t(2));
        QCOMPARE(st.okTicks, uint64_t(20));
        QCOMPARE(st.missedPct, 100.0 * 2 / 22);
        QCOMPARE(st.maxIntervalUs, 3500.0);
        QCOMPARE(st.minIntervalUs, 500.0);
        QVERIFY(sink.summary.hasMissed);
        QCOMPARE(sink.summary.missedPct, st.missedPct);
    }

    void slowWakeUpsAtHighRatesSpinInsteadOfMissing() {
        // Sleeps wake 40 µs late; at 50 kHz (20 µs ticks) sleeping would miss every
        // other tick, so after the first late wake-ups the sampler spins to each deadline.
        FakeClock clock(kStart, 40);
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 5; }, [](uint64_t n) { return endAfter(n, 5000); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{20, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        const SamplerStats st = sampler.stats();
        QVERIFY2(st.missedPct < 1.0, QByteArray::number(st.missedPct));
        QVERIFY(clock.spins() > 4900);
        QVERIFY(clock.sleeps() < 100); // it re-checks by sleeping, rarely
        // Once spinning, ticks land exactly on the grid.
        QCOMPARE((sink.timestamps.back() - kStart) % 20, uint64_t(0));
    }

    void slowWakeUpsAtLowRatesStillSleep() {
        // The same 40 µs latency at 1 kHz: sleeping is cheap and in time, never spin.
        FakeClock clock(kStart, 40);
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 5; }, [](uint64_t n) { return endAfter(n, 500); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        QCOMPARE(clock.spins(), uint64_t(0));
        QCOMPARE(sampler.stats().missed, uint64_t(0));
        for (size_t k = 1; k < sink.timestamps.size(); ++k)
            QCOMPARE(sink.timestamps[k], kStart + k * 1000 + 40);
    }

    void spinningIsBoundedWhenWakeUpsAreVeryLate() {
        // 5 ms wake-ups (an overloaded machine) at 12.5 kHz: the learned latency is
        // capped, so the sampler never spins more than TickWaiter::kMaxSpinUs per tick; it
        // falls behind and counts missed ticks instead of burning a core for nothing.
        FakeClock clock(kStart, 5000);
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 5; }, [](uint64_t n) { return endAfter(n, 200); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{80, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        QVERIFY(clock.maxSpinUs() <= TickWaiter::kMaxSpinUs);
        QVERIFY(sampler.stats().missed > 0);
    }

    void tenKilohertzAndSlowerNeverSpin() {
        // Wake-ups 60 µs late at 10 kHz: each tick lands 60 µs late, none is missed, and
        // no CPU goes on spinning (issue 23: the cheapest steady rate at 1 and 10 kHz).
        FakeClock clock(kStart, 60);
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 5; }, [](uint64_t n) { return endAfter(n, 2000); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{100, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        QCOMPARE(clock.spins(), uint64_t(0));
        QCOMPARE(sampler.stats().missed, uint64_t(0));
    }

    void realtimeWaiterNeverSpins() {
        // Same late wake-ups as above; a waiter told not to spin (SCHED_FIFO) sleeps every
        // time, however little time is left.
        FakeClock clock(kStart, 40);
        TickWaiter waiter(clock);
        waiter.forbidSpinning();
        std::atomic<bool> stop{false};
        uint64_t deadline = kStart;
        for (int i = 0; i < 1000; ++i) {
            deadline = std::max(deadline + 20, clock.nowUs() + 1);
            QVERIFY(waiter.waitUntil(deadline, stop));
        }
        QCOMPARE(clock.spins(), uint64_t(0));
        QVERIFY(waiter.latencyUs() > 0); // it did learn the latency, and ignored it
        stop = true;
        QVERIFY(!waiter.waitUntil(clock.nowUs() + 1000, stop));
    }

    void durationStopsAtTheDeadline() {
        FakeClock clock(kStart);
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 50; }, nullptr);
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{2000, 0.5, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::Duration);
        QCOMPARE(sink.timestamps.size(), size_t(250)); // deadlines 0, 2000, ... 498000
        const RecordingSummary s = sampler.summary();
        QCOMPARE(s.durationSec, 0.5);
        QCOMPARE(s.ticks, uint64_t(250));
        QCOMPARE(s.sampleRate, 500.0);
        QCOMPARE(sink.finishes, 1);
    }

    void errorsAreCountedNotEmitted() {
        FakeClock clock(kStart);
        ScriptedStackSource source(
            &clock, [](uint64_t) { return 5; },
            [](uint64_t n) {
                if (n >= 400) return ReadOutcome::ProcessEnded;
                return n % 4 == 3 ? ReadOutcome::Error : ReadOutcome::Ok;
            });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{100, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        const SamplerStats st = sampler.stats();
        QCOMPARE(st.errors, uint64_t(100));
        QCOMPARE(st.okTicks, uint64_t(300));
        QCOMPARE(st.errorPct, 25.0);
        QCOMPARE(sink.timestamps.size(), size_t(300));
        QCOMPARE(sink.summary.ticks, uint64_t(400)); // ticks, as CPython counts them
        QCOMPARE(sink.summary.errorRatePct, 25.0);
    }

    void everyThreadBecomesABatch() {
        FakeClock clock(kStart);
        ScriptedStackSource source(
            &clock, nullptr, [](uint64_t n) { return endAfter(n, 10); }, 3);
        RecordingSink sink;
        SamplerOptions opts{1000, 0, {}};
        opts.read.allThreads = true;
        Sampler sampler(source, sink, opts, clock);
        sampler.start();
        sampler.wait();
        QCOMPARE(sink.threadIds.size(), size_t(30));
        QCOMPARE(sink.threadIds[0], uint64_t(100));
        QCOMPARE(sink.threadIds[2], uint64_t(102));
        QCOMPARE(sink.frameCounts[0], size_t(3));
        QCOMPARE(sampler.stats().threadSamples, uint64_t(30));
        QVERIFY(sink.info.captureFeatures & 1); // AllThreads
    }

    void lastSecondRateFollowsARateChange() {
        FakeClock clock(kStart);
        // 1 kHz for 2 s, then reads become 4 ms slow: 250 Hz with 3 of 4 ticks missed.
        ScriptedStackSource source(
            &clock, [](uint64_t n) { return n < 2000 ? 0 : 4000; },
            [](uint64_t n) { return endAfter(n, 2750); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}}, clock);
        sampler.start();
        sampler.wait();
        const SamplerStats st = sampler.stats();
        QVERIFY2(std::abs(st.achievedRateLastSecond - 250) < 10,
                 qPrintable(QString::number(st.achievedRateLastSecond)));
        QVERIFY(st.achievedRateOverall > 500 && st.achievedRateOverall < 1000);
        QCOMPARE(st.missed, uint64_t(3 * 750)); // after every slow read, and before the exit
    }

    void statsAreReadableWhileRunning() {
        // Real clock: the sampler thread publishes, this thread reads concurrently.
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{200, 0, {}});
        sampler.start();
        uint64_t lastOkTicks = 0;
        int reads = 0;
        // Read while it records 500 samples (0.1 s at 5 kHz on an idle machine; the cap is
        // only there so a sampler that never samples fails instead of hanging).
        const auto cap = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (lastOkTicks < 500 && std::chrono::steady_clock::now() < cap) {
            const SamplerStats st = sampler.stats();
            QVERIFY(st.okTicks >= lastOkTicks);
            QVERIFY(st.okTicks == st.threadSamples); // one thread: a torn snapshot would differ
            QVERIFY(st.running);
            lastOkTicks = st.okTicks;
            ++reads;
        }
        QVERIFY(sampler.running());
        sampler.requestStop();
        QCOMPARE(sampler.wait(), StopReason::Requested);
        const SamplerStats st = sampler.stats();
        QVERIFY(!st.running);
        QVERIFY(st.okTicks >= 500);
        QVERIFY(st.samplerCpuSec > 0);
        QCOMPARE(sink.finishes, 1);
        QVERIFY(reads > 100);
    }

    void stopIsPromptAtLowRates() {
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{5000000, 0, {}}); // one tick per 5 s
        sampler.start();
        // The first tick is at once; then the sampler sleeps towards the next one, 5 s away.
        QTRY_VERIFY_WITH_TIMEOUT(sampler.stats().okTicks == 1, 60000);
        const auto t0 = std::chrono::steady_clock::now();
        sampler.requestStop();
        QCOMPARE(sampler.wait(), StopReason::Requested);
        // Well under the 5 s tick, even when a busy machine is slow to wake the sampler.
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(2500));
        QCOMPARE(sink.timestamps.size(), size_t(1));
    }

    // The control socket's flush: an errand runs on the sampler's thread, between two
    // batches (never beside one), while the recording goes on; once the sampler ended
    // (asked to stop, or the target gone), it is refused rather than left waiting.
    void errandsRunBetweenTicksOnTheSamplerThread() {
        struct Sink final : SampleSink {
            std::atomic<std::thread::id> batchThread{};
            std::atomic<int> inBatch{0}, batches{0};
            void addBatch(const SampleBatch&) override {
                ++inBatch;
                batchThread = std::this_thread::get_id();
                ++batches;
                --inBatch;
            }
        } sink;
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}});
        QVERIFY(!sampler.runBetweenTicks([] {})); // not started
        sampler.start();
        QTRY_VERIFY_WITH_TIMEOUT(sink.batches > 0, 60000);
        for (int i = 0; i < 20; ++i) {
            std::thread::id ranOn;
            int besideABatch = -1, before = -1;
            QVERIFY(sampler.runBetweenTicks([&] {
                ranOn = std::this_thread::get_id();
                besideABatch = sink.inBatch;
                before = sink.batches;
            }));
            QCOMPARE(ranOn, sink.batchThread.load());
            QVERIFY(ranOn != std::this_thread::get_id());
            QCOMPARE(besideABatch, 0);
            QTRY_VERIFY_WITH_TIMEOUT(sink.batches > before, 60000); // and it goes on
        }
        sampler.requestStop();
        sampler.wait();
        bool ran = false;
        QVERIFY(!sampler.runBetweenTicks([&] { ran = true; }));
        QVERIFY(!ran);

        // The target ends on its own: an errand asked afterwards does not wait for wait().
        FakeClock clock(kStart);
        ScriptedStackSource ending(&clock, nullptr, [](uint64_t n) { return endAfter(n, 3); });
        RecordingSink quiet;
        Sampler short_(ending, quiet, SamplerOptions{1000, 0, {}}, clock);
        short_.start();
        QTRY_VERIFY_WITH_TIMEOUT(!short_.running(), 60000);
        QVERIFY(!short_.runBetweenTicks([] {}));
        QCOMPARE(short_.wait(), StopReason::TargetExited);
    }

    void destructorStopsAndFinishesOnce() {
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        {
            Sampler sampler(source, sink, SamplerOptions{1000, 0, {}});
            sampler.start();
        }
        QCOMPARE(sink.finishes, 1);
    }

    void throwingSinkStopsTheRecording() {
        class Thrower final : public SampleSink {
        public:
            void addBatch(const SampleBatch&) override {
                throw std::logic_error("addBatch after export");
            }
            void finish(const RecordingSummary&) override { ++finishes; }
            int finishes = 0;
        } sink;
        FakeClock clock(kStart);
        ScriptedStackSource source(&clock, nullptr, nullptr);
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::SinkFailed);
        QVERIFY(sampler.failure().find("after export") != std::string::npos);
        QCOMPARE(sink.finishes, 1);
    }

    // The sink's error channel: a sink that can no longer store samples stops the
    // recording after the tick that found it, with its error. Old: sampling went on.
    void failingSinkStopsTheRecordingAfterItsTick() {
        class Failing final : public SampleSink {
        public:
            void addBatch(const SampleBatch&) override { ++batches; }
            bool failed() const override { return batches >= 30; }
            Error sinkError() const override {
                return makeError(ErrorKind::DiskFull, "spill disk full");
            }
            void finish(const RecordingSummary&) override { ++finishes; }
            int batches = 0, finishes = 0;
        } sink;
        FakeClock clock(kStart);
        ScriptedStackSource source(
            &clock, nullptr, [](uint64_t n) { return endAfter(n, 1000); }, 3);
        SamplerOptions opts{1000, 0, {}};
        opts.read.allThreads = true;
        Sampler sampler(source, sink, opts, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::SinkFailed);
        QCOMPARE(sink.batches, 30); // ten ticks of three threads, then no more
        QCOMPARE(sampler.failure(), std::string("recording stopped: spill disk full"));
        QCOMPARE(sampler.failureKind(), ErrorKind::DiskFull);
        QCOMPARE(sink.finishes, 1);
    }

    // The source learns the tick interval before its first read (its torn-read retry
    // budget is a quarter of it), and what its reads tore reaches the stats and summary.
    void tornReadsReachTheSummary() {
        class Tearing final : public StackSource {
        public:
            ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override {
                if (intervalUs == 0) return ReadOutcome::Error; // told too late
                if (++reads > 5) return ReadOutcome::ProcessEnded;
                torn.firstTry += 3;
                torn.reread += 1;
                torn.tries += 2;
                torn.dropped += reads == 5 ? 1 : 0;
                waits.asked += 2;
                waits.unknown += reads == 3 ? 1 : 0;
                out.resize(1);
                out[0] = ThreadStack{};
                out[0].threadId = 7;
                out[0].frames = {frame};
                count = 1;
                return ReadOutcome::Ok;
            }
            void setTickInterval(uint64_t us) override { intervalUs = us; }
            TornReads tornReads() const override { return torn; }
            WaitTally waitTally() const override { return waits; }
            FrameRegistry& registry() override { return reg; }
            int pid() const override { return 1; }
            PythonVersion pythonVersion() const override { return {3, 12, 0}; }
            FrameRegistry reg;
            FrameId frame = makeFrame(reg, "t.py", "run", 1);
            int reads = 0;
            uint64_t intervalUs = 0;
            TornReads torn;
            WaitTally waits;
        } source;
        FakeClock clock(kStart);
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{250, 0, {}}, clock);
        sampler.start();
        sampler.wait();
        QCOMPARE(source.intervalUs, uint64_t(250));
        const TornReads t = sampler.summary().torn;
        QCOMPARE(t.firstTry, uint64_t(15));
        QCOMPARE(t.reread, uint64_t(5));
        QCOMPARE(t.tries, uint64_t(10));
        QCOMPARE(t.dropped, uint64_t(1));
        QCOMPARE(sampler.stats().torn.reread, uint64_t(5));
        // Wait reasons the kernel could not tell are counted the same way (issue 36).
        QCOMPARE(sampler.summary().waits.asked, uint64_t(10));
        QCOMPARE(sampler.summary().waits.unknown, uint64_t(1));
        QCOMPARE(sampler.stats().waits.unknown, uint64_t(1));
    }

    // The summary's words: nothing when nothing tore; the share re-read and dropped; a
    // warning that names --blocking only above kTornWarningPct dropped.
    void tornReadsAreDescribed() {
        TornReads t;
        t.firstTry = 1000;
        QVERIFY(describeTornReads(t).empty());
        t.firstTry = 970;
        t.reread = 20;
        t.tries = 15;
        t.dropped = 10;
        const std::string line = describeTornReads(t);
        QVERIFY2(line.find("3.00% of thread reads tore") != std::string::npos, line.c_str());
        QVERIFY2(line.find("1.5 tries each") != std::string::npos, line.c_str());
        QVERIFY2(line.find("1.00% tore at every try") != std::string::npos, line.c_str());
        QVERIFY(tornReadsWarning(t).empty());
        t.dropped = 30; // 2.9% of 1020
        QVERIFY2(tornReadsWarning(t).find("--blocking") != std::string::npos,
                 tornReadsWarning(t).c_str());
    }

    // A thread state whose thread has not started (no native id yet, no frames) is not
    // a thread. Old: it became an empty Gecko thread "Thread-0".
    void unstartedThreadsAreNotEmitted() {
        class Starting final : public StackSource {
        public:
            ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override {
                if (++reads > 5) return ReadOutcome::ProcessEnded;
                out.resize(2);
                out[0] = ThreadStack{};
                out[0].threadId = 0; // being created: no native thread id yet
                out[1] = ThreadStack{};
                out[1].threadId = 7;
                out[1].frames = {frame};
                count = 2;
                return ReadOutcome::Ok;
            }
            FrameRegistry& registry() override { return reg; }
            int pid() const override { return 1; }
            PythonVersion pythonVersion() const override { return {3, 12, 0}; }
            FrameRegistry reg;
            FrameId frame = makeFrame(reg, "t.py", "run", 1);
            int reads = 0;
        } source;
        FakeClock clock(kStart);
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{1000, 0, {}}, clock);
        sampler.start();
        sampler.wait();
        QCOMPARE(sink.threadIds, std::vector<uint64_t>(5, 7));
        QCOMPARE(sampler.stats().threadSamples, uint64_t(5));
    }

    // A thread --mode skipped (reported with ReadOptions::reportSkipped) is no sample:
    // it reaches only addSkipped(), with its status, and is not counted.
    void skippedThreadsReachOnlyAddSkipped() {
        class Moded final : public StackSource {
        public:
            ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override {
                if (++reads > 4) return ReadOutcome::ProcessEnded;
                out.resize(2);
                out[0] = ThreadStack{};
                out[0].threadId = 7;
                out[0].status = ThreadStatus::HasGil;
                out[0].frames = {frame};
                out[1] = ThreadStack{};
                out[1].threadId = 8;
                out[1].status = ThreadStatus::GilRequested;
                out[1].skipped = true;
                count = 2;
                return ReadOutcome::Ok;
            }
            FrameRegistry& registry() override { return reg; }
            int pid() const override { return 1; }
            PythonVersion pythonVersion() const override { return {3, 12, 0}; }
            FrameRegistry reg;
            FrameId frame = makeFrame(reg, "t.py", "run", 1);
            int reads = 0;
        } source;
        struct Sink final : SampleSink {
            std::vector<uint64_t> batches, skipped;
            uint32_t skippedStatus = 0;
            void addBatch(const SampleBatch& b) override { batches.push_back(b.threadId); }
            void addSkipped(const SampleBatch& b) override {
                skipped.push_back(b.threadId);
                skippedStatus = b.status;
                QVERIFY(b.frames.empty());
                QCOMPARE(b.timestampsUs.size(), size_t(1));
            }
        } sink;
        FakeClock clock(kStart);
        SamplerOptions opts{1000, 0, {}};
        opts.read.mode = ProfilingMode::Gil;
        opts.read.reportSkipped = true;
        Sampler sampler(source, sink, opts, clock);
        sampler.start();
        sampler.wait();
        QCOMPARE(sink.batches, std::vector<uint64_t>(4, 7));
        QCOMPARE(sink.skipped, std::vector<uint64_t>(4, 8));
        QCOMPARE(sink.skippedStatus, uint32_t(ThreadStatus::GilRequested));
        QCOMPARE(sampler.stats().threadSamples, uint64_t(4));
    }

    // -d beyond the clock's range is "until stopped". Old: the end time overflowed and
    // the recording stopped at once with 0 samples.
    void hugeDurationsMeanUntilStopped() {
        constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();
        for (double d : {1e300, 1e15, 9.2e18, 1e20, std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN(), 0.0, -1.0})
            QCOMPARE(endOfRecordingUs(kStart, d), kForever);
        QCOMPARE(endOfRecordingUs(kStart, 2.5), kStart + 2'500'000);
        QCOMPARE(endOfRecordingUs(kStart, 1e9), kStart + 1'000'000'000'000'000ull);
        FakeClock clock(kStart);
        ScriptedStackSource source(&clock, nullptr, [](uint64_t n) { return endAfter(n, 100); });
        RecordingSink sink;
        Sampler sampler(source, sink, SamplerOptions{1000, 1e300, {}}, clock);
        sampler.start();
        QCOMPARE(sampler.wait(), StopReason::TargetExited);
        QCOMPARE(sink.timestamps.size(), size_t(100));
    }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "test_sampler.moc"
