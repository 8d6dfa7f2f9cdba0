// StillProcess' rules over a made-up process (threads that run, sleep, come, go, or lie),
// and KernelTaskRuns on this very process, through perf's page and through schedstat.
#include "core/remote/still_process.h"
#include "core/remote/task_runs.h"

#include <QElapsedTimer>
#include <QTest>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

using gilscope::remote::KernelTaskRuns;
using gilscope::remote::StillProcess;
using gilscope::remote::TaskRuns;
using gilscope::remote::ThreadStateProbe;

namespace {

class FakeProcess final : public TaskRuns {
public:
    struct Thread {
        uint64_t arrivals = 1;
        bool asleep = true;
    };
    std::map<uint64_t, Thread> threads;
    int64_t countOverride = -2; // -2: the number of threads
    int lists = 0, probes = 0, counts = 0;
    std::function<void()> onProbe; // what happens while the read probes
    std::function<void()> onCount; // what happens while the threads are counted
    bool switches = false;         // onCpuNow answers (but for unknownSwitches)
    std::set<uint64_t> unknownSwitches;

    bool list(std::vector<uint64_t>& tids) override {
        ++lists;
        tids.clear();
        for (const auto& [tid, t] : threads)
            tids.push_back(tid);
        std::reverse(tids.begin(), tids.end()); // /proc's order is not promised
        return !tids.empty();
    }
    int64_t count() override {
        ++counts;
        if (onCount) onCount();
        return countOverride == -2 ? int64_t(threads.size()) : countOverride;
    }
    bool onCpuNow(uint64_t tid, bool& onCpu) override {
        auto it = threads.find(tid);
        if (!switches || it == threads.end() || unknownSwitches.contains(tid)) return false;
        onCpu = !it->second.asleep;
        return true;
    }
    bool arrivals(uint64_t tid, uint64_t& out) override {
        auto it = threads.find(tid);
        if (it == threads.end()) return false;
        out = it->second.arrivals;
        return true;
    }
    ThreadStateProbe::State probe(uint64_t tid) {
        ++probes;
        if (onProbe) onProbe();
        ThreadStateProbe::State s;
        auto it = threads.find(tid);
        if (it != threads.end())
            s.cpu = it->second.asleep ? ThreadStateProbe::Cpu::Idle : ThreadStateProbe::Cpu::OnCpu;
        return s;
    }
    void ran(uint64_t tid) { ++threads[tid].arrivals; } // put on a CPU, and off it again
};

struct Fixture {
    FakeProcess k;
    StillProcess still{k, [this](uint64_t tid) { return k.probe(tid); }};
    // One sample: true when it was still; otherwise the read, and whether it armed.
    bool sample(bool readOk = true) {
        if (still.stillSinceLastRead()) return true;
        still.afterRead(readOk);
        return false;
    }
};

} // namespace

class TestStillProcess : public QObject {
    Q_OBJECT
private slots:
    void aProcessAsleepThroughItsReadIsStillAfter() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {}}};
        QVERIFY(!f.sample()); // read, and armed
        QVERIFY(f.still.armed());
        QVERIFY(f.sample());
        QVERIFY(f.sample());
        QCOMPARE(f.still.samplesStill(), uint64_t(2));
        QCOMPARE(f.k.lists, 1);  // listed once
        QCOMPARE(f.k.probes, 2); // each thread probed once, before the read
    }

    void theReadUsesTheProbesTakenBeforeIt() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {1, false}}};
        QVERIFY(!f.still.stillSinceLastRead());
        const ThreadStateProbe::State* s10 = f.still.probedBefore(10);
        const ThreadStateProbe::State* s11 = f.still.probedBefore(11);
        QVERIFY(s10 && s11);
        QCOMPARE(int(s10->cpu), int(ThreadStateProbe::Cpu::Idle));
        QCOMPARE(int(s11->cpu), int(ThreadStateProbe::Cpu::OnCpu));
        QVERIFY(!f.still.probedBefore(12)); // not listed: the read probes it itself
        f.still.afterRead(true);
        QVERIFY(!f.still.armed()); // 11 was on a CPU
    }

    void aThreadAsleepSinceItsLastProbeIsNotProbedAgain() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {}}, {12, {1, false}}};
        QVERIFY(!f.sample());
        QCOMPARE(f.k.probes, 3);
        f.k.ran(10);
        QVERIFY(!f.sample());
        QCOMPARE(f.k.probes, 5); // 10 ran since, and 12 was awake: 11 keeps its probe
        f.k.threads[12].asleep = true;
        f.k.ran(12);
        QVERIFY(!f.sample());
        QCOMPARE(f.k.probes, 6);
        QVERIFY(f.still.armed());
        QVERIFY(f.sample());
        QCOMPARE(f.k.probes, 6);
    }

    void nothingOnCpuNeedsEveryThreadAsleepAndNoneNew() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {1, false}}};
        QVERIFY(!f.still.stillSinceLastRead());
        QVERIFY(!f.still.nothingOnCpu()); // 11 is on a CPU
        f.still.afterRead(true);
        f.k.threads[11].asleep = true;
        f.k.ran(11);
        QVERIFY(!f.still.stillSinceLastRead());
        f.k.countOverride = 3; // a thread the listing does not have
        QVERIFY(!f.still.nothingOnCpu());
        f.k.countOverride = -2;
        const int counts = f.k.counts;
        QVERIFY(f.still.nothingOnCpu());  // it stands for the read: no afterRead
        QCOMPARE(f.k.counts, counts + 1); // one count serves both checks
        QVERIFY(f.still.armed());
        QVERIFY(f.still.stillSinceLastRead());
        // A thread woken since, asleep again at its probe: empty, but not armed.
        f.k.ran(10);
        QVERIFY(!f.still.stillSinceLastRead());
        f.k.onCount = [&] { f.k.ran(11); };
        QVERIFY(f.still.nothingOnCpu());
        QVERIFY(!f.still.armed());
    }

    // --mode cpu: a thread's state comes from the kernel's switch records where they
    // answer, and from a probe where they do not.
    void switchRecordsStandForProbesInCpuMode() {
        FakeProcess k;
        k.switches = true;
        StillProcess still{k, [&](uint64_t tid) { return k.probe(tid); }, true};
        k.threads = {{10, {}}, {11, {1, false}}, {12, {}}};
        k.unknownSwitches = {12}; // no switch recorded yet
        QVERIFY(!still.stillSinceLastRead());
        QCOMPARE(k.probes, 1); // 12 only
        QCOMPARE(int(still.probedBefore(10)->cpu), int(ThreadStateProbe::Cpu::Idle));
        QCOMPARE(int(still.probedBefore(11)->cpu), int(ThreadStateProbe::Cpu::OnCpu));
        QCOMPARE(int(still.probedBefore(12)->cpu), int(ThreadStateProbe::Cpu::Idle));
        QVERIFY(!still.nothingOnCpu());
        still.afterRead(true);
        QVERIFY(!still.armed());
        k.threads[11].asleep = true;
        k.ran(11);
        QVERIFY(!still.stillSinceLastRead());
        QCOMPARE(k.probes, 1);
        QVERIFY(still.nothingOnCpu());
        QVERIFY(still.armed());
        // Without cpuFromSwitches (wall mode wants what an idle thread waits for) every
        // thread is probed.
        FakeProcess w;
        w.switches = true;
        StillProcess wall{w, [&](uint64_t tid) { return w.probe(tid); }};
        w.threads = {{10, {}}, {11, {}}};
        QVERIFY(!wall.stillSinceLastRead());
        QCOMPARE(w.probes, 2);
    }

    void aThreadPutOnACpuSinceIsRead() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {}}};
        f.sample();
        f.k.ran(11);
        QVERIFY(!f.sample());
        QVERIFY(f.sample());
        f.k.ran(10);
        QVERIFY(!f.sample());
    }

    void aThreadPutOnACpuDuringTheReadDoesNotArm() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {}}};
        // Asleep at its probe, then woken while the memory is read: what the read saw of
        // it may be torn, and it may go on changing.
        f.k.onProbe = [&] {
            if (f.k.probes == 2) f.k.ran(10);
        };
        QVERIFY(!f.sample());
        QVERIFY(!f.still.armed());
        f.k.onProbe = nullptr;
        QVERIFY(!f.sample());
        QVERIFY(f.sample());
    }

    void anAwakeThreadDoesNotArm() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {1, false}}};
        for (int i = 0; i < 3; ++i)
            QVERIFY(!f.sample());
        f.k.threads[11].asleep = true;
        QVERIFY(!f.sample());
        QVERIFY(f.sample());
    }

    void aNewThreadIsNeverMissed() {
        Fixture f;
        f.k.threads = {{10, {}}};
        f.k.onProbe = [&] { f.k.threads[11] = {}; }; // made after the listing
        QVERIFY(!f.sample());
        QVERIFY(!f.still.armed()); // the count says two
        f.k.onProbe = nullptr;
        QVERIFY(!f.sample()); // both listed now: reads both, arms
        QVERIFY(f.sample());
        // One thread ends and another comes: the count is the same, but the one that is
        // gone no longer answers (its page may: then its probe finds no file).
        f.k.threads.erase(11);
        f.k.threads[12] = {};
        QVERIFY(!f.sample());
        QVERIFY(!f.still.armed());
        QVERIFY(!f.sample()); // 10 and 12 listed now
        QVERIFY(f.sample());
        QCOMPARE(f.k.lists, 3);
    }

    void aThreadWhoseProbeFindsNoFileIsListedAgain() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {}}};
        f.sample();
        f.k.ran(10);
        f.k.onProbe = [&] {
            f.k.threads.erase(11);
            f.k.threads[12] = {};
        };
        f.k.countOverride = 2;
        QVERIFY(!f.sample());
        f.k.onProbe = nullptr;
        QVERIFY(!f.sample());
        QVERIFY(f.sample());
    }

    void aThreadThatIsGoneIsRead() {
        Fixture f;
        f.k.threads = {{10, {}}, {11, {}}};
        f.sample();
        f.k.threads.erase(11);
        QVERIFY(!f.sample());
        QVERIFY(!f.still.armed()); // listed again
        QVERIFY(!f.sample());
        QVERIFY(f.sample());
    }

    void aFailedReadDoesNotArm() {
        Fixture f;
        f.k.threads = {{10, {}}};
        QVERIFY(!f.sample(false));
        QVERIFY(!f.still.armed());
        QVERIFY(!f.sample());
    }

    void parsesSchedstat() {
        uint64_t a = 0;
        QVERIFY(KernelTaskRuns::parseSchedstat("52735408 51573309 221\n", a));
        QCOMPARE(a, uint64_t(221));
        QVERIFY(!KernelTaskRuns::parseSchedstat("", a));
        QVERIFY(!KernelTaskRuns::parseSchedstat("12 34\n", a));
        QVERIFY(!KernelTaskRuns::parseSchedstat("running\n", a));
        QVERIFY(!KernelTaskRuns::parseSchedstat("5000 0 0\n", a)); // no CONFIG_SCHED_INFO
    }

    // Both sources on a thread of this process that sleeps and wakes on cue.
    void arrivalsMoveWhenAThreadRuns_data() {
        QTest::addColumn<bool>("perf");
        QTest::newRow("perf page") << true;
        QTest::newRow("schedstat") << false;
    }
    void arrivalsMoveWhenAThreadRuns() {
        QFETCH(bool, perf);
        std::atomic<uint64_t> tid{0};
        std::atomic<int> go{0}, done{0};
        std::thread other([&] {
            tid = uint64_t(::syscall(SYS_gettid));
            for (int round = 1; round <= 2; ++round) {
                while (go.load() < round)
                    ::usleep(2000); // asleep between the checks
                done = round;
            }
        });
        while (!tid)
            ::usleep(100);
        auto self = gilscope::target::ProcDir::open(int(::getpid()));
        QVERIFY(self);
        KernelTaskRuns runs{*self, perf};
        std::vector<uint64_t> tids;
        QVERIFY(runs.list(tids));
        QVERIFY(std::find(tids.begin(), tids.end(), tid.load()) != tids.end());
        QCOMPARE(runs.count(), int64_t(tids.size()));
        uint64_t a = 0, b = 0;
        QVERIFY(runs.arrivals(tid, a));
        if (perf && runs.perfThreads() == 0) QSKIP("the kernel refused a perf event here");
        if (!perf) QCOMPARE(runs.perfThreads(), size_t(0));
        go = 1;
        while (done.load() < 1)
            ::usleep(100);
        QVERIFY(runs.arrivals(tid, b));
        QVERIFY(b != a); // it woke to see go
        go = 2;
        other.join();
        QVERIFY(!runs.arrivals(999999999, b));
    }

    // The newest switch record: a thread blocked in read() is off a CPU, one spinning is on
    // one (or preempted, which counts as on one).
    void switchRecordsSayWhetherAThreadIsOnACpu() {
        int toThread[2], fromThread[2];
        QVERIFY(::pipe(toThread) == 0 && ::pipe(fromThread) == 0);
        std::atomic<uint64_t> tid{0};
        std::atomic<bool> stop{false};
        std::thread other([&] {
            tid = uint64_t(::syscall(SYS_gettid));
            char c = 0;
            while (::read(toThread[0], &c, 1) == 1 && c == 'b') // block, then wake
                if (::write(fromThread[1], &c, 1) != 1) return;
            if (c == 's') // spin until told to stop
                while (!stop.load(std::memory_order_relaxed)) {
                }
        });
        while (!tid)
            ::usleep(100);
        auto self = gilscope::target::ProcDir::open(int(::getpid()));
        QVERIFY(self);
        KernelTaskRuns runs{*self, true, true};
        uint64_t a = 0;
        QVERIFY(runs.arrivals(tid, a));
        bool onCpu = true;
        if (runs.perfThreads() == 0 || !runs.onCpuNow(tid, onCpu)) {
            // No record until the thread switches: wake it once so that it does.
            char c = 'b';
            QVERIFY(::write(toThread[1], &c, 1) == 1 && ::read(fromThread[0], &c, 1) == 1);
        }
        if (runs.perfThreads() == 0) {
            stop = true;
            ::close(toThread[1]);
            other.join();
            QSKIP("the kernel refused a perf event here");
        }
        // It blocks again in read() right after answering: wait for the record of that.
        QElapsedTimer clock;
        clock.start();
        while (!(runs.onCpuNow(tid, onCpu) && !onCpu) && clock.elapsed() < 30000)
            ::usleep(1000);
        QVERIFY2(!onCpu, "a thread blocked in read() was never seen off a CPU");
        char c = 's';
        QVERIFY(::write(toThread[1], &c, 1) == 1);
        while (!(runs.onCpuNow(tid, onCpu) && onCpu) && clock.elapsed() < 60000)
            ::usleep(1000);
        const bool sawSpinning = onCpu;
        stop = true;
        other.join();
        ::close(toThread[0]), ::close(toThread[1]), ::close(fromThread[0]), ::close(fromThread[1]);
        QVERIFY2(sawSpinning, "a spinning thread was never seen on a CPU");
        // A thread the ring never heard of: unknown, not "off".
        QVERIFY(!runs.onCpuNow(999999999, onCpu));
    }
};

QTEST_GUILESS_MAIN(TestStillProcess)
#include "test_still_process.moc"
