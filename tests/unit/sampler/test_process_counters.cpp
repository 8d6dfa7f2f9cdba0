// The process's counters: the bounded series every sink keeps, the /proc reader on real
// processes (this one, and a child that ends), the poller's thread, and a Recording that
// hands the readings to its sink between ticks.
#include "core/counters/counter_poller.h"
#include "core/counters/proc_counters.h"
#include "core/sample/process_counters.h"
#include "core/sampler/recording.h"
#include "tests/unit/sampler/scripted_stack_source.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace gilscope;
using gilscope::test::ScriptedStackSource;
using namespace std::chrono_literals;

namespace {

// This test's own process, through the door a target gets.
std::shared_ptr<const target::AttachedProcess> ownDoor() {
    auto door = target::AttachedProcess::open(getpid());
    return door ? std::shared_ptr<const target::AttachedProcess>(*door) : nullptr;
}

ProcessCounters reading(uint64_t t, uint64_t rss, uint32_t threads, uint64_t cpu) {
    return {t, rss, threads, cpu};
}

// Collects readings from any thread; waits for a count (an event, not a time).
struct Readings {
    std::mutex m;
    std::condition_variable cv;
    std::vector<ProcessCounters> got;
    void add(const ProcessCounters& c) {
        std::lock_guard lock(m);
        got.push_back(c);
        cv.notify_all();
    }
    bool waitFor(size_t n) {
        std::unique_lock lock(m);
        return cv.wait_for(lock, 30s, [&] { return got.size() >= n; });
    }
    size_t size() {
        std::lock_guard lock(m);
        return got.size();
    }
};

class CountingSink : public SampleSink {
public:
    void addBatch(const SampleBatch&) override {}
    void addCounters(const ProcessCounters& c) override { readings.add(c); }
    Readings readings;
};

} // namespace

class TestProcessCounters : public QObject {
    Q_OBJECT
private slots:
    void seriesThinsAndKeepsTheLatest() {
        CounterSeries s;
        const size_t n = CounterSeries::kMaxReadings * 3 + 17;
        for (size_t i = 0; i < n; ++i)
            s.add(reading(1000 + i * 10, i, uint32_t(i % 50), i * 100));
        QVERIFY(s.size() <= CounterSeries::kMaxReadings);
        QVERIFY(s.size() >= CounterSeries::kMaxReadings / 2);
        QCOMPARE(s.readings().front().timeUs, uint64_t(1000));
        QCOMPARE(s.readings().back().timeUs, uint64_t(1000 + (n - 1) * 10));
        for (size_t i = 1; i < s.size(); ++i)
            QVERIFY(s.readings()[i].timeUs > s.readings()[i - 1].timeUs);
        // A reading from before the last one (a clock step) is left out.
        s.add(reading(500, 1, 1, 1));
        QCOMPARE(s.readings().back().timeUs, uint64_t(1000 + (n - 1) * 10));
    }

    void spanSaysMinMaxAndChange() {
        CounterSeries s;
        s.add(reading(100, 50, 4, 0));
        s.add(reading(200, 80, 9, 1'000'000));
        s.add(reading(300, 30, 6, 3'000'000));
        s.add(reading(400, 70, 5, 4'000'000));
        const auto all = s.whole();
        QVERIFY(all);
        QCOMPARE(all->readings, size_t(4));
        QCOMPARE(all->rssMin, uint64_t(30));
        QCOMPARE(all->rssMax, uint64_t(80));
        QCOMPARE(all->rssDelta(), int64_t(20));
        QCOMPARE(all->threadsMin, 4u);
        QCOMPARE(all->threadsMax, 9u);
        QCOMPARE(all->cpuNs, uint64_t(4'000'000));
        QCOMPARE(all->elapsedUs, uint64_t(300));
        QCOMPARE(all->cores(), 4'000'000.0 / 300'000.0);
        const auto mid = s.span(150, 310);
        QVERIFY(mid);
        QCOMPARE(mid->readings, size_t(2));
        QCOMPARE(mid->rssDelta(), int64_t(-50));
        QCOMPARE(mid->cpuNs, uint64_t(2'000'000));
        QVERIFY(!s.span(310, 390));
        QVERIFY(!s.span(500, 600));
        QCOMPARE(s.at(250)->timeUs, uint64_t(200));
        QCOMPARE(s.at(50)->timeUs, uint64_t(100));
        QCOMPARE(s.at(9999)->timeUs, uint64_t(400));
        QVERIFY(!CounterSeries().at(1));
        QVERIFY(!all->gcKnown); // no reading had the interpreter's counts
    }

    // The interpreter's GC counts over a span: from the first reading that had them to the
    // last, readings without them skipped; a count that went back adds nothing.
    void spanCountsCollections() {
        CounterSeries s;
        const auto gc = [](uint64_t t, std::array<uint64_t, 3> n, uint64_t freed, bool known) {
            ProcessCounters r = reading(t, 1, 1, 0);
            r.gcKnown = known;
            r.gcCollections = n;
            r.gcCollected = freed;
            return r;
        };
        s.add(gc(100, {}, 0, false));
        s.add(gc(200, {10, 1, 0}, 500, true));
        s.add(gc(300, {99, 99, 99}, 99999, false)); // not known: its figures do not count
        s.add(gc(400, {25, 3, 1}, 900, true));
        s.add(gc(500, {30, 2, 1}, 950, true)); // generation 1 went back
        const auto all = s.whole();
        QVERIFY(all && all->gcKnown);
        QCOMPARE(all->gcCollections, (std::array<uint64_t, 3>{20, 1, 1}));
        QCOMPARE(all->gcCollected, uint64_t(450));
        const auto mid = s.span(150, 450);
        QCOMPARE(mid->gcCollections, (std::array<uint64_t, 3>{15, 2, 1}));
        QVERIFY(!s.span(50, 150)->gcKnown);
        QVERIFY(!s.span(300, 300)->gcKnown);
    }

    // This process, read as a target is: memory it writes, threads it starts and CPU it
    // burns all show.
    void readerSeesThisProcessGrow() {
        auto reader = ProcCounterReader::open(ownDoor());
        QVERIFY(reader);
        const auto before = reader->read();
        QVERIFY(before);
        QVERIFY(before->rssBytes > 0 && before->threads >= 1);

        std::vector<char> block(64 << 20);
        for (size_t i = 0; i < block.size(); i += 4096)
            static_cast<volatile char&>(block[i]) = 1;
        std::mutex m;
        std::condition_variable cv;
        bool release = false;
        std::atomic<int> started{0};
        std::vector<std::thread> pool;
        for (int i = 0; i < 6; ++i)
            pool.emplace_back([&] {
                ++started;
                std::unique_lock lock(m);
                cv.wait(lock, [&] { return release; });
            });
        while (started < 6)
            std::this_thread::yield();
        const auto burnUntil = std::chrono::steady_clock::now() + 60ms;
        volatile uint64_t spin = 0;
        while (std::chrono::steady_clock::now() < burnUntil)
            spin = spin + 1;

        const auto after = reader->read();
        {
            std::lock_guard lock(m);
            release = true;
        }
        cv.notify_all();
        for (auto& t : pool)
            t.join();
        QVERIFY(after);
        QVERIFY2(after->rssBytes >= before->rssBytes + (60 << 20),
                 qPrintable(QString("%1 -> %2").arg(before->rssBytes).arg(after->rssBytes)));
        QCOMPARE(after->threads, before->threads + 6);
        QVERIFY(after->cpuNs >= before->cpuNs + 50'000'000);
    }

    // A process that ends: its reader says so rather than giving stale figures.
    void readerOfAnEndedProcessReadsNothing() {
        const pid_t child = fork();
        if (child == 0) {
            pause();
            _exit(0);
        }
        QVERIFY(child > 0);
        auto door = target::AttachedProcess::open(child);
        QVERIFY(door);
        auto reader = ProcCounterReader::open(*door);
        QVERIFY(reader);
        QVERIFY(reader->read());
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        QVERIFY(!reader->read());
        QVERIFY(!ProcCounterReader::open(*door)); // its door stays, the process does not
        QVERIFY(!ProcCounterReader::open(nullptr));
    }

    void pollerDeliversAndTakesALastReading() {
        auto reader = ProcCounterReader::open(ownDoor());
        QVERIFY(reader);
        Readings got;
        CounterPoller poller(std::move(*reader), nullptr, 5ms,
                             [&](const ProcessCounters& c) { got.add(c); });
        QVERIFY(got.waitFor(3));
        const size_t before = got.size();
        poller.stop();
        const size_t after = got.size();
        QVERIFY(after >= before + 1); // the last reading, at the stop
        poller.stop();                // again: nothing more
        QCOMPARE(got.size(), after);
    }

    // A Recording polls its target's counters and hands them to the sink on the sampler's
    // thread, stamped in the samples' clock; none when the options say 0.
    void recordingHandsCountersToItsSink() {
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        source.setProcess(ownDoor());
        CountingSink sink;
        SamplerOptions options;
        options.intervalUs = 2000;
        options.countersEveryMs = 5;
        {
            Recording recording(source, sink, options);
            recording.start();
            QVERIFY(sink.readings.waitFor(3));
            recording.finish();
        }
        std::lock_guard lock(sink.readings.m);
        for (size_t i = 1; i < sink.readings.got.size(); ++i)
            QVERIFY(sink.readings.got[i].timeUs >= sink.readings.got[i - 1].timeUs);
        QVERIFY(sink.readings.got.front().rssBytes > 0);
    }

    void noCountersWhenOff() {
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        source.setProcess(ownDoor());
        CountingSink sink;
        SamplerOptions options;
        options.intervalUs = 1000;
        options.countersEveryMs = 0;
        Recording recording(source, sink, options);
        recording.start();
        recording.waitForFirstTick();
        std::this_thread::sleep_for(30ms); // long enough for several 5 ms readings if any
        recording.finish();
        QCOMPARE(sink.readings.size(), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestProcessCounters)
#include "test_process_counters.moc"
