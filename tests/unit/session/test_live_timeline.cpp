// LiveTimeline fed with synthetic batches: shares per bucket, <GC> detection, bounded
// memory by halving resolution, and snapshots taken while a producer runs.
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "core/session/live_timeline.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

#include <atomic>
#include <thread>

using namespace gilscope;
using gilscope::test::SyntheticFeed;

namespace {

LiveTimelineOptions opts(uint64_t bucketUs, size_t maxBuckets, size_t maxThreads = 256) {
    LiveTimelineOptions o;
    o.bucketUs = bucketUs;
    o.maxBuckets = maxBuckets;
    o.maxThreads = maxThreads;
    return o;
}

// The frames the tests use: a function, and the "<GC>" frame the remote reader adds.
struct Frames {
    FrameId work, gc;
};
Frames frames(SyntheticFeed& feed) {
    return {feed.frame("a.py", 3, "work"), feed.frame("~", kNoLocation, "<GC>")};
}

} // namespace

class TestLiveTimeline : public QObject {
    Q_OBJECT
private slots:
    void countsStatesPerBucket() {
        LiveTimeline t(opts(1000, 100));
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        using namespace ThreadStatus;
        // Bucket 0 of thread 7: 3 samples, 2 with the GIL, 1 waiting, 2 on CPU.
        f.add(7, HasGil | OnCpu | MainThread, {fr.work}, {10'000});
        f.add(7, HasGil | OnCpu | MainThread, {fr.work}, {10'400});
        f.add(7, GilRequested | MainThread, {fr.work}, {10'900});
        // Bucket 2 of thread 9: one GC sample, two timestamps in one batch.
        f.add(9, HasGil, {fr.gc, fr.work}, {12'100, 12'200});
        // Bucket 1 of thread 7: off CPU, on a lock, in a read and asleep.
        f.add(7, withWaitReason(MainThread, WaitReason::Lock), {fr.work}, {11'000});
        f.add(7, withWaitReason(MainThread, WaitReason::IoRead), {fr.work}, {11'100});
        f.add(7, withWaitReason(MainThread, WaitReason::Sleep), {fr.work}, {11'200});
        f.add(7, withWaitReason(MainThread, WaitReason::Poll), {fr.work}, {11'300});
        t.finish({});

        const TimelineSnapshot s = t.snapshot();
        QCOMPARE(s.originUs, uint64_t(10'000));
        QCOMPARE(s.bucketUs, uint64_t(1000));
        QCOMPARE(s.spanUs, uint64_t(2'200));
        QCOMPARE(s.samples, uint64_t(9));
        QVERIFY(s.finished);
        QCOMPARE(s.threads.size(), size_t(2));
        const ThreadTimeline& main = s.threads[0];
        QCOMPARE(main.threadId, uint64_t(7));
        QVERIFY(main.mainThread);
        QCOMPARE(main.buckets.size(), size_t(2));
        QCOMPARE(main.buckets[0].samples, 3u);
        QCOMPARE(main.buckets[0].hasGil, 2u);
        QCOMPARE(main.buckets[0].gilRequested, 1u);
        QCOMPARE(main.buckets[0].onCpu, 2u);
        QCOMPARE(main.buckets[0].gc, 0u);
        QCOMPARE(main.buckets[0].lockWait + main.buckets[0].ioWait + main.buckets[0].sleepPoll, 0u);
        QCOMPARE(main.buckets[1].samples, 4u);
        QCOMPARE(main.buckets[1].lockWait, 1u);
        QCOMPARE(main.buckets[1].ioWait, 1u);
        QCOMPARE(main.buckets[1].sleepPoll, 2u);
        QCOMPARE(main.buckets[1].onCpu, 0u);
        const ThreadTimeline& other = s.threads[1];
        QVERIFY(!other.mainThread);
        QCOMPARE(other.samples, uint64_t(2));
        QCOMPARE(other.buckets.size(), size_t(3));
        QCOMPARE(other.buckets[0].samples, 0u);
        QCOMPARE(other.buckets[2].samples, 2u);
        QCOMPARE(other.buckets[2].gc, 2u);
        QCOMPARE(other.buckets[2].onCpu, 0u);
    }

    // A bucket names what its last wait was on (the reader's wait leaf), for the hover:
    // "read TCP 127.0.0.1:5432"; a frame that only looks like one (not in "~") is not one.
    void namesWhatAWaitIsOn() {
        LiveTimeline t(opts(1000, 100));
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        const FrameId recv = f.frame("~", kNoLocation, "<read TCP 127.0.0.1:5432>");
        const FrameId lock = f.frame("~", kNoLocation, "<lock wait>");
        const FrameId fake = f.frame("a.py", 9, "<lock wait>");
        const uint32_t io = withWaitReason(0, WaitReason::IoRead);
        f.add(3, io, {recv, fr.work}, {10'000, 10'100});
        f.add(3, withWaitReason(0, WaitReason::Lock), {lock, fr.work}, {11'000});
        f.add(3, io, {recv, fr.work}, {11'500});            // the later one wins
        f.add(3, ThreadStatus::OnCpu, {fr.work}, {12'000}); // on a CPU: nothing
        f.add(4, withWaitReason(0, WaitReason::Lock), {fake}, {10'000});
        t.finish({});
        const TimelineSnapshot s = t.snapshot();
        const auto label = [&](uint64_t tid, size_t bucket) {
            for (const ThreadTimeline& th : s.threads)
                if (th.threadId == tid) {
                    const uint32_t i = th.buckets.at(bucket).waitLabel;
                    return i < s.waitLabels.size() ? s.waitLabels[i] : std::string("?");
                }
            return std::string("?");
        };
        QCOMPARE(label(3, 0), std::string("read TCP 127.0.0.1:5432"));
        QCOMPARE(label(3, 1), std::string("read TCP 127.0.0.1:5432"));
        QCOMPARE(label(3, 2), std::string());
        QCOMPARE(label(4, 0), std::string());
    }

    void mainThreadComesFirst() {
        LiveTimeline t;
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        f.add(1, 0, {fr.work}, {1});
        f.add(50, ThreadStatus::MainThread, {fr.work}, {2});
        const auto s = t.snapshot();
        QCOMPARE(s.threads.front().threadId, uint64_t(50));
        QCOMPARE(s.threads.back().threadId, uint64_t(1));
    }

    // Names come from the source (SampleSink::nameThread), before or after a thread's first
    // sample, and again when it is renamed; threads never named keep an empty name.
    void namesThreadsFromTheSource() {
        LiveTimeline t;
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        t.nameThread(1, "db-writer"); // before its first sample
        f.add(1, 0, {fr.work}, {1});
        f.add(2, 0, {fr.work}, {2});
        f.add(3, 0, {fr.work}, {3});
        t.nameThread(2, "to-be-renamed");
        t.nameThread(2, "renamed-worker");
        const auto s = t.snapshot();
        QCOMPARE(s.threads.size(), size_t(3));
        QCOMPARE(s.threads[0].name, std::string("db-writer"));
        QCOMPARE(s.threads[1].name, std::string("renamed-worker"));
        QVERIFY(s.threads[2].name.empty());
    }

    // The user's marks (SampleSink::addMarker, on the sampler's thread) reach the snapshot
    // in order, before or after samples, and stop at kMaxMarks.
    void keepsMarksInOrder() {
        LiveTimeline t;
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        t.addMarker(1000, "before any sample");
        f.add(1, 0, {fr.work}, {2000});
        t.addMarker(2500, "checkout start");
        f.add(1, 0, {fr.work}, {3000});
        t.addMarker(3500, "checkout end");
        t.finish({});
        auto s = t.snapshot();
        QCOMPARE(s.marks.size(), size_t(3));
        QCOMPARE(s.marks[1].text, std::string("checkout start"));
        QCOMPARE(s.marks[1].timeUs, uint64_t(2500));
        QCOMPARE(s.marks[2].text, std::string("checkout end"));
        LiveTimeline many;
        SyntheticFeed g(many);
        const Frames gr = frames(g);
        for (size_t i = 0; i < LiveTimeline::kMaxMarks + 10; ++i)
            many.addMarker(1000 + i, "m" + std::to_string(i));
        g.add(1, 0, {gr.work}, {5000});
        many.finish({});
        s = many.snapshot();
        QCOMPARE(s.marks.size(), LiveTimeline::kMaxMarks);
        QCOMPARE(s.marks.back().text, "m" + std::to_string(LiveTimeline::kMaxMarks - 1));
    }

    void halvesResolutionInsteadOfGrowing() {
        LiveTimeline t(opts(100, 16));
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        // 10,000 samples 10 µs apart = 100 ms: would be 1,000 buckets of 100 µs.
        for (uint64_t i = 0; i < 10'000; ++i)
            f.add(1, i % 4 == 0 ? ThreadStatus::HasGil : 0, {fr.work}, {i * 10});
        const auto s = t.snapshot();
        QVERIFY(s.threads[0].buckets.size() <= 16);
        QCOMPARE(s.bucketUs, uint64_t(100 * 64)); // 1000 buckets -> halved 6 times -> 16
        uint64_t total = 0, gil = 0;
        for (const auto& b : s.threads[0].buckets) {
            total += b.samples;
            gil += b.hasGil;
        }
        QCOMPARE(total, uint64_t(10'000)); // nothing lost by merging
        QCOMPARE(gil, uint64_t(2'500));
    }

    void capsThreadCount() {
        LiveTimeline t(opts(100'000, 3000, 3));
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        for (uint64_t tid = 1; tid <= 10; ++tid)
            f.add(tid, 0, {fr.work}, {tid});
        const auto s = t.snapshot();
        QCOMPARE(s.threads.size(), size_t(3));
        QCOMPARE(s.samples, uint64_t(10));
    }

    void emptySnapshotBeforeSamples() {
        LiveTimeline t;
        const auto s = t.snapshot();
        QCOMPARE(s.samples, uint64_t(0));
        QCOMPARE(s.spanUs, uint64_t(0));
        QVERIFY(s.threads.empty());
        QVERIFY(!s.finished);
    }

    // A producer thread and a polling reader: every snapshot is self-consistent, and
    // after finish() no sample is lost for having been held back (item 11).
    void snapshotsWhileProducing() {
        LiveTimeline t(opts(50, 64));
        SyntheticFeed f(t);
        const Frames fr = frames(f);
        std::atomic<bool> done{false};
        std::thread producer([&] {
            for (uint64_t i = 0; i < 200'000; ++i)
                f.add(i % 3, ThreadStatus::OnCpu, {fr.work}, {i});
            t.finish({}); // applies what a snapshot made the producer hold back
            done = true;
        });
        int snapshots = 0;
        while (!done) {
            const auto s = t.snapshot();
            uint64_t sum = 0;
            for (const auto& th : s.threads) {
                QVERIFY(th.buckets.size() <= 64);
                for (const auto& b : th.buckets)
                    sum += b.samples;
            }
            QCOMPARE(sum, s.samples);
            ++snapshots;
        }
        producer.join();
        QCOMPARE(t.snapshot().samples, uint64_t(200'000));
        QVERIFY(snapshots > 0);
    }
};

QTEST_GUILESS_MAIN(TestLiveTimeline)
#include "test_live_timeline.moc"
