// ProfileModel fed with synthetic batches: own/total under recursion, lines, top-down and
// bottom-up trees, callers/callees, every filter alone and combined, GIL contention with
// replay-style interleaved ticks, spilled blocks, and queries while a producer runs.
#include "core/analysis/profile_model.h"
#include "core/analysis/profile_views.h"
#include "core/analysis/sample_store.h"
#include "core/sample/producer_lock.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

using namespace gilscope;
using gilscope::test::SyntheticFeed;
namespace TS = gilscope::ThreadStatus;

namespace {

std::shared_ptr<const ProfileSnapshot> run(const ProfileModel& m, ProfileFilter f = {}) {
    auto r = m.query(f);
    if (!r) qFatal("query failed: %s", r.error().message.c_str());
    return *r;
}

uint32_t funcId(const ProfileSnapshot& s, const std::string& name) {
    for (uint32_t i = 0; i < s.functions.size(); ++i)
        if (s.functions[i].name == name) return i;
    return kNoFunction;
}

// From the stacks, and from the top-down tree's call nodes: the same figures, always.
FunctionRow row(const ProfileSnapshot& s, const std::string& name) {
    const uint32_t f = funcId(s, name);
    FunctionRow fromStacks{f, 0, 0}, fromTree{f, 0, 0};
    for (const FunctionRow& r : functionTable(s))
        if (r.func == f) fromStacks = r;
    for (const FunctionRow& r : functionTable(s, topDownTree(s)))
        if (r.func == f) fromTree = r;
    if (fromStacks.own != fromTree.own || fromStacks.total != fromTree.total)
        qFatal("%s: own %llu / %llu, total %llu / %llu", name.c_str(),
               (unsigned long long)fromStacks.own, (unsigned long long)fromTree.own,
               (unsigned long long)fromStacks.total, (unsigned long long)fromTree.total);
    return fromStacks;
}

uint64_t own(const ProfileSnapshot& s, const std::string& name) {
    return row(s, name).own;
}
uint64_t total(const ProfileSnapshot& s, const std::string& name) {
    return row(s, name).total;
}

std::vector<uint64_t> times(uint64_t from, size_t n, uint64_t step = 1000) {
    std::vector<uint64_t> v;
    for (size_t i = 0; i < n; ++i)
        v.push_back(from + i * step);
    return v;
}

} // namespace

class TestProfileModel : public QObject {
    Q_OBJECT
private slots:
    void ownAndTotalCountRecursionOnce() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId main = f.frame("m.py", 1, "main"), a1 = f.frame("m.py", 5, "a"),
                      a2 = f.frame("m.py", 6, "a"), b = f.frame("m.py", 9, "b");
        // main -> a -> b -> a (leaf a): a recursed, counted once in total.
        f.add(1, 0, {a2, b, a1, main}, times(10, 3));
        f.add(1, 0, {b, a1, main}, times(5000, 1));
        f.add(1, 0, {main}, times(9000, 1));
        const auto s = run(m);
        QCOMPARE(s->matchedSamples, 5u);
        QCOMPARE(own(*s, "a"), 3u);
        QCOMPARE(total(*s, "a"), 4u);
        QCOMPARE(own(*s, "b"), 1u);
        QCOMPARE(total(*s, "b"), 4u);
        QCOMPARE(own(*s, "main"), 1u);
        QCOMPARE(total(*s, "main"), 5u);
        QCOMPARE(s->functions[funcId(*s, "a")].firstLine, 5);

        // Lines: a:6 is the leaf 3 times; a:5 is on 4 stacks.
        uint64_t line5 = 0, line6 = 0;
        for (const LineRow& r : lineTable(*s)) {
            const LineKey& k = s->lines[r.line];
            if (s->functions[k.func].name != "a") continue;
            if (k.line == 5) line5 = r.total;
            if (k.line == 6) {
                line6 = r.total;
                QCOMPARE(r.own, 3u);
            }
        }
        QCOMPARE(line5, 4u);
        QCOMPARE(line6, 3u);
        const auto heat = fileLineHeat(*s, "m.py");
        QCOMPARE(heat.size(), size_t(4)); // lines 1, 5, 6, 9
        QCOMPARE(heat.front().line, 1);
        QCOMPARE(heat.front().total, 5u);
    }

    void topDownAndBottomUpTrees() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId main = f.frame("m.py", 1, "main"), x = f.frame("m.py", 3, "x"),
                      x2 = f.frame("m.py", 4, "x"), y = f.frame("m.py", 7, "y"),
                      leaf = f.frame("m.py", 9, "leaf");
        f.add(1, 0, {leaf, x, main}, times(0, 6));
        f.add(1, 0, {leaf, x2, main}, times(100000, 1)); // another line of x: same tree node
        f.add(2, 0, {leaf, y, main}, times(0, 3));
        f.add(2, 0, {y, main}, times(50000, 2));
        const auto s = run(m);
        const CallTree td = topDownTree(*s);
        QCOMPARE(td.total(0), 12u);
        QCOMPARE(td.children(0).size(), size_t(1));
        const uint32_t mainNode = td.children(0)[0];
        QCOMPARE(s->functions[td.func(mainNode)].name, std::string("main"));
        QCOMPARE(td.total(mainNode), 12u);
        QCOMPARE(td.children(mainNode).size(), size_t(2));
        const uint32_t first = td.children(mainNode)[0]; // hottest first
        QCOMPARE(s->functions[td.func(first)].name, std::string("x"));
        QCOMPARE(td.total(first), 7u);
        QCOMPARE(td.self(first), 0u);
        QCOMPARE(td.row(first), 0u);
        const uint32_t second = td.children(mainNode)[1];
        QCOMPARE(td.total(second), 5u);
        QCOMPARE(td.self(second), 2u);
        QCOMPARE(td.row(second), 1u);
        QCOMPARE(td.parent(second), mainNode);

        // Explored as asked: the leaves at first, their callers once opened.
        const CallTree bu = bottomUpTree(*s);
        QCOMPARE(bu.total(0), 12u);
        const uint32_t leafNode = bu.children(0)[0];
        const size_t found = bu.size();
        QCOMPARE(s->functions[bu.func(leafNode)].name, std::string("leaf"));
        QCOMPARE(bu.total(leafNode), 10u);
        QVERIFY(bu.hasChildren(leafNode));
        QCOMPARE(bu.size(), found); // asking whether it has callers explores nothing
        QCOMPARE(bu.children(leafNode).size(), size_t(2));
        QVERIFY(bu.size() > found);
        QCOMPARE(bu.total(bu.children(leafNode)[0]), 7u); // called from x
        const uint32_t yNode = bu.children(0)[1];
        QCOMPARE(s->functions[bu.func(yNode)].name, std::string("y"));
        QCOMPARE(bu.total(yNode), 2u);
        QCOMPARE(bu.self(bu.children(yNode)[0]), 2u); // ends at main
        QVERIFY(!bu.hasChildren(bu.children(yNode)[0]));

        const CallersCallees cc = callersAndCallees(*s, funcId(*s, "leaf"));
        QCOMPARE(cc.total, 10u);
        QCOMPARE(cc.callers.size(), size_t(2));
        QCOMPARE(s->functions[cc.callers[0].func].name, std::string("x"));
        QCOMPARE(cc.callers[0].total, 7u);
        QVERIFY(cc.callees.empty());
        const CallersCallees cm = callersAndCallees(*s, funcId(*s, "main"));
        QCOMPARE(cm.total, 12u);
        QVERIFY(cm.callers.empty());
        QCOMPARE(cm.callees.size(), size_t(2));
    }

    void recursiveCallersCountedOncePerSample() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId main = f.frame("m.py", 1, "main"), r = f.frame("m.py", 3, "r");
        f.add(1, 0, {r, r, r, main}, times(0, 4));
        const auto s = run(m);
        const CallersCallees cc = callersAndCallees(*s, funcId(*s, "r"));
        QCOMPARE(cc.total, 4u);
        QCOMPARE(cc.callers.size(), size_t(2)); // main and r
        for (const FunctionRow& c : cc.callers)
            QCOMPARE(c.total, 4u);
        QCOMPARE(cc.callees.size(), size_t(1)); // r
        QCOMPARE(cc.callees[0].total, 4u);
    }

    void stateFiltersUseStatusBitsAndGcFrames() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId cpu = f.frame("s.py", 1, "cpu_work"), gil = f.frame("s.py", 2, "gil_only"),
                      wait = f.frame("s.py", 3, "waiting"), exc = f.frame("s.py", 4, "raising"),
                      gc = f.frame("~", kNoLocation, "<GC>"), alloc = f.frame("s.py", 5, "alloc"),
                      idle = f.frame("s.py", 6, "idle");
        f.add(1, TS::OnCpu | TS::HasGil, {cpu}, times(0, 5));
        f.add(1, TS::HasGil, {gil}, times(10000, 4));
        f.add(2, TS::GilRequested, {wait}, times(0, 3));
        f.add(2, TS::HasException | TS::OnCpu | TS::HasGil, {exc}, times(10000, 2));
        f.add(3, TS::OnCpu | TS::HasGil, {gc, alloc}, times(0, 6));
        f.add(3, 0, {idle}, times(10000, 7));
        auto s = run(m);
        QCOMPARE(s->matchedSamples, 27u);
        QCOMPARE(s->recordedSamples, 27u);
        QCOMPARE(s->threads.size(), size_t(3));

        ProfileFilter flt;
        flt.state = StateFilter::OnCpu;
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 13u);
        QCOMPARE(total(*s, "idle"), 0u);
        QCOMPARE(total(*s, "cpu_work"), 5u);

        flt.state = StateFilter::HoldingGil;
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 17u);
        QCOMPARE(own(*s, "gil_only"), 4u);

        flt.state = StateFilter::WaitingForGil;
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 3u);
        QCOMPARE(total(*s, "waiting"), 3u);

        flt.state = StateFilter::Exception;
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 2u);
        QCOMPARE(own(*s, "raising"), 2u);

        flt.state = StateFilter::Gc;
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 6u);
        QCOMPARE(total(*s, "alloc"), 6u);

        // Combined with a thread set and a time range (the scan path).
        flt = {};
        flt.state = StateFilter::OnCpu;
        flt.threads = {2, 3};
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 8u);
        flt.hasRange = true;
        const uint64_t origin = s->originUs;
        flt.startUs = origin + 10000;
        flt.endUs = origin + 12000; // [10000, 12000): two ticks
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 2u);
        QCOMPARE(own(*s, "raising"), 2u);
        flt.state = StateFilter::All;
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 4u); // raising x2 + idle x2
        flt.threads = {};
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 6u);
    }

    void rangeIsHalfOpenAndRelativeToTheFirstSample() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId early = f.frame("r.py", 1, "early"), late = f.frame("r.py", 2, "late");
        f.add(1, 0, {early}, times(5'000'000, 100)); // 0 .. 99 ms
        f.add(1, 0, {late}, times(5'100'000, 100));  // 100 .. 199 ms
        ProfileFilter flt;
        flt.hasRange = true;
        flt.startUs = 5'100'000;
        flt.endUs = 5'150'000;
        auto s = run(m, flt);
        QCOMPARE(s->originUs, 5'000'000u);
        QCOMPARE(total(*s, "early"), 0u);
        QCOMPARE(total(*s, "late"), 50u);
        flt.startUs = 5'050'000;
        flt.endUs = 5'100'001;
        s = run(m, flt);
        QCOMPARE(total(*s, "early"), 50u);
        QCOMPARE(total(*s, "late"), 1u);
        flt.startUs = 1;
        flt.endUs = 4'000'000; // before the recording
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 0u);
    }

    void gilContentionNamesTheHolderAtContendedTicksOnly() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId hog = f.frame("g.py", 1, "hog"), calm = f.frame("g.py", 2, "calm"),
                      waiter = f.frame("g.py", 3, "waiter"), other = f.frame("g.py", 4, "other");
        // Replay order: each thread's run-length records arrive whole, not tick by tick.
        f.add(1, TS::HasGil | TS::OnCpu, {hog}, times(0, 10));      // ticks 0..9
        f.add(1, TS::HasGil | TS::OnCpu, {calm}, times(10000, 10)); // ticks 10..19
        f.add(2, TS::GilRequested, {waiter}, times(0, 10));         // waits 0..9
        f.add(2, 0, {other}, times(10000, 10));                     // idle 10..19
        f.add(3, TS::GilRequested, {waiter}, times(0, 5));          // a second waiter
        ProfileFilter flt;
        flt.state = StateFilter::GilContention;
        auto s = run(m, flt);
        QCOMPARE(s->contendedTicks, 10u);
        QCOMPARE(s->matchedSamples, 10u);
        QCOMPARE(own(*s, "hog"), 10u);
        QCOMPARE(total(*s, "calm"), 0u);
        QCOMPARE(total(*s, "waiter"), 0u);
        // With a range and a thread set (applied to the holder).
        flt.hasRange = true;
        flt.startUs = s->originUs + 2000;
        flt.endUs = s->originUs + 4000;
        s = run(m, flt);
        QCOMPARE(s->contendedTicks, 2u);
        QCOMPARE(own(*s, "hog"), 2u);
        flt.threads = {2};
        s = run(m, flt);
        QCOMPARE(s->matchedSamples, 0u);
    }

    // Its sibling for locks (issue 36): at the ticks some thread waits on a lock, what the
    // threads on a CPU ran; the waiters themselves and threads asleep are not counted.
    void lockContentionNamesWhoRanAtContendedTicksOnly() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId crunch = f.frame("l.py", 1, "crunch"), later = f.frame("l.py", 2, "later"),
                      wait = f.frame("l.py", 3, "wait"), nap = f.frame("l.py", 4, "nap");
        const uint32_t lockWait = withWaitReason(0, WaitReason::Lock);
        f.add(1, TS::OnCpu, {crunch}, times(0, 10));                         // ticks 0..9
        f.add(1, TS::OnCpu, {later}, times(10000, 10));                      // ticks 10..19
        f.add(2, lockWait, {wait}, times(0, 10));                            // waits 0..9
        f.add(3, withWaitReason(0, WaitReason::Sleep), {nap}, times(0, 20)); // asleep
        f.add(4, TS::GilRequested, {wait}, times(10000, 10)); // a GIL wait is not a lock wait
        ProfileFilter flt;
        flt.state = StateFilter::LockContention;
        auto s = run(m, flt);
        QCOMPARE(s->contendedTicks, 10u);
        QCOMPARE(s->matchedSamples, 10u);
        QCOMPARE(own(*s, "crunch"), 10u);
        QCOMPARE(total(*s, "later"), 0u);
        QCOMPARE(total(*s, "wait"), 0u);
        QCOMPARE(total(*s, "nap"), 0u);
    }

    void spilledBlocksGiveTheSameCountsAsMemory() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId a = f.frame("b.py", 1, "a"), b = f.frame("b.py", 2, "b"),
                      c = f.frame("b.py", 3, "c");
        // 300k samples: several 64k blocks on disk plus a tail in memory.
        const size_t n = 300000;
        for (size_t i = 0; i < n; ++i) {
            const FrameId leaf = i % 3 == 0 ? a : (i % 3 == 1 ? b : c);
            f.add(i % 4, (i % 2) ? TS::OnCpu : 0, {leaf}, {1'000'000 + i * 10});
        }
        const auto all = run(m);
        QCOMPARE(all->matchedSamples, uint64_t(n));
        QVERIFY2(all->notKept.empty(), all->notKept.c_str());
        ProfileFilter flt;
        flt.hasRange = true;
        flt.startUs = 0;
        flt.endUs = UINT64_MAX;
        flt.state = StateFilter::OnCpu;
        auto scanned = run(m, flt);
        flt.hasRange = false;
        auto counted = run(m, flt);
        QCOMPARE(scanned->matchedSamples, uint64_t(n / 2));
        QCOMPARE(scanned->selfCounts, counted->selfCounts);
        // A range inside the third block: [1'000'000 + 150000*10, + 1000 samples).
        flt.hasRange = true;
        flt.state = StateFilter::All;
        flt.startUs = 1'000'000 + 150000 * 10;
        flt.endUs = flt.startUs + 1000 * 10;
        auto part = run(m, flt);
        QCOMPARE(part->matchedSamples, 1000u);
        QCOMPARE(own(*part, "a") + own(*part, "b") + own(*part, "c"), 1000u);
    }

    // Item 11: a reader holding the lock (a query or a snapshot copying) never makes the
    // producer (the sampler) wait: its batches are held back and applied, in order, with
    // the next batch that finds the lock free. With a plain mutex the producer would wait
    // for the reader, which waits for the producer here: the bounded wait fails.
    void producerNeverWaitsForAReader() {
        ProducerLock lock;
        std::vector<uint64_t> applied;
        auto apply = [&](const SampleBatch& b) {
            for (uint64_t t : b.timestampsUs)
                applied.push_back(t);
        };
        const FrameId frames[] = {FrameId{1}, FrameId{2}};
        auto batchAt = [&](const uint64_t& t) {
            return SampleBatch{7, 0, TS::OnCpu, frames, std::span<const uint64_t>(&t, 1)};
        };
        std::atomic<bool> producerDone{false};
        std::thread producer;
        bool doneWhileHeld = false;
        lock.read([&] {
            producer = std::thread([&] {
                for (uint64_t t = 1; t <= 1000; ++t)
                    lock.add(batchAt(t), apply);
                producerDone = true;
            });
            // An event, not a time: the producer finishing while we hold the lock.
            for (int i = 0; i < 60000 && !producerDone; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            doneWhileHeld = producerDone;
        });
        producer.join();
        QVERIFY2(doneWhileHeld, "the producer waited for the reader's lock");
        QCOMPARE(lock.heldBackTotal(), uint64_t{1000});
        QVERIFY(applied.empty());
        const uint64_t next = 1001;
        lock.add(batchAt(next), apply); // the lock is free: everything, in order
        QCOMPARE(applied.size(), size_t{1001});
        QVERIFY(std::is_sorted(applied.begin(), applied.end()));
    }

    // Item 11: the same for the model itself: queries while a producer runs, and after
    // finish() every batch counted once, none lost for having been held back.
    void queriesWhileTheProducerRuns() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId a = f.frame("c.py", 1, "a"), b = f.frame("c.py", 2, "b");
        std::vector<FrameId> frames;
        for (int i = 0; i < 40; ++i)
            frames.push_back(f.frame("c.py", 10 + i, "deep" + std::to_string(i)));
        std::atomic<bool> done{false};
        std::thread producer([&] {
            for (uint64_t i = 0; i < 200000; ++i) {
                std::vector<FrameId> st(frames.begin(), frames.begin() + (i % 40));
                st.insert(st.begin(), (i & 1) ? a : b);
                f.add(i % 8, TS::OnCpu, st, {i * 100});
            }
            m.finish({}); // applies what a query made the producer hold back
            done = true;
        });
        int queries = 0;
        uint64_t last = 0;
        while (!done || queries < 3) {
            ProfileFilter flt;
            flt.hasRange = queries % 2 == 1;
            auto s = run(m, flt);
            QVERIFY(s->matchedSamples >= last); // never goes backwards
            uint64_t sum = 0;
            for (uint64_t c : s->selfCounts)
                sum += c;
            QCOMPARE(sum, s->matchedSamples);
            last = s->matchedSamples;
            ++queries;
        }
        producer.join();
        QCOMPARE(run(m)->matchedSamples, 200000u);
    }

    // Issue 18 item 6: when the spill directory cannot be made, the store keeps at most
    // its bound in memory (the first samples), counts what it drops and says so. Old: it
    // kept every record in memory, without bound.
    // Sample records name a thread in 16 bits. The 65,537th thread's samples are not
    // kept, and the snapshot says so; they never count as another thread's.
    void threadsPastTheLastSlotAreNotMergedButSaid() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId work = f.frame("w.py", 3, "work"), late = f.frame("w.py", 9, "late");
        constexpr uint64_t kSlots = 65536;
        for (uint64_t tid = 1; tid <= kSlots; ++tid)
            f.add(tid, 0, {work}, {1000 + tid});
        f.add(kSlots + 1, 0, {late}, times(200000, 3));
        f.add(kSlots, 0, {work}, {300000}); // the last thread with a slot keeps counting
        const auto s = run(m);
        QCOMPARE(s->threads.size(), size_t(kSlots));
        QCOMPARE(s->recordedSamples, kSlots + 1);
        QCOMPARE(total(*s, "late"), 0u);
        QCOMPARE(total(*s, "work"), kSlots + 1);
        QCOMPARE(s->threads.back().threadId, kSlots);
        QCOMPARE(s->threads.back().samples, 2u);
        QVERIFY2(s->notKept.find("3 samples of threads past the 65,536th") != std::string::npos,
                 s->notKept.c_str());
    }

    void failedSpillIsBoundedAndSaysWhatWasDropped() {
        const QByteArray savedTmp = qgetenv("TMPDIR");
        qputenv("TMPDIR", "/nonexistent/gilscope-no-tmp");
        constexpr uint64_t kLimit = 2 * SampleStore::kBlockRecords;
        SampleStore store(kLimit);
        const uint64_t n = 5 * SampleStore::kBlockRecords + 7;
        for (uint64_t i = 0; i < n; ++i) {
            SampleRecord r;
            r.node = StackId{1};
            r.setTime(i);
            store.append(r);
        }
        if (savedTmp.isNull())
            qunsetenv("TMPDIR");
        else
            qputenv("TMPDIR", savedTmp);
        QCOMPARE(store.size(), kLimit);
        QCOMPARE(store.dropped(), n - kLimit);
        const SampleStore::View view = store.view();
        QCOMPARE(uint64_t(view.memory.size()), kLimit);
        uint64_t scanned = 0, lastTime = 0;
        QVERIFY(view.scan(0, UINT64_MAX,
                          [&](std::span<const SampleRecord> records) {
                              scanned += records.size();
                              for (const SampleRecord& r : records)
                                  lastTime = std::max(lastTime, r.time());
                          })
                    .ok());
        QCOMPARE(scanned, kLimit);
        QCOMPARE(lastTime, kLimit - 1); // the first samples are the ones kept
        const std::string problem = store.spillProblem();
        QVERIFY2(problem.find("last " + std::to_string(n - kLimit) + " thread-samples") !=
                     std::string::npos,
                 problem.c_str());
        QVERIFY2(problem.find("/nonexistent/gilscope-no-tmp") != std::string::npos,
                 problem.c_str());
    }
};

QTEST_GUILESS_MAIN(TestProfileModel)
#include "test_profile_model.moc"
