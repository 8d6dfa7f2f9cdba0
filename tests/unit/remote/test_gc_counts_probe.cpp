// The GC counts' reader over a made-up memory: what a real process cannot be made to show
// on demand (a count going back, a ring index out of its ring, a seqlock caught mid-write,
// a layout that lies). That it reads real interpreters right is test_counters' job.
#include "core/remote/gc_counts_probe.h"
#include "tests/unit/remote/fake_memory.h"

#include <QTest>

using namespace gilscope;
using namespace gilscope::remote;

namespace {

constexpr uint64_t kStats = 0x10000;
constexpr uint64_t kRings = 0x20000;

// 3.8-3.14: generation_stats[3] of {collections, collected, uncollectable}.
void putInline(test::FakeMemory& mem, std::array<int64_t, 3> collections,
               std::array<int64_t, 3> collected) {
    for (uint64_t g = 0; g < 3; ++g) {
        mem.put<int64_t>(kStats + g * 24, collections[g]);
        mem.put<int64_t>(kStats + g * 24 + 8, collected[g]);
    }
}

GcStatsLayout inlineLayout() {
    PythonLayout l;
    l.inGcCollecting = 200;
    locateInlineGcStats(l);
    return l.gcStats;
}

GcStatsLayout ringLayout(uint64_t size) {
    PythonLayout l;
    l.minor = 15;
    locateGcStatsFromDebugOffsets(l, 0, 112, 104, size);
    return l.gcStats;
}

ProcessCounters fillFrom(GcCountsProbe& probe) {
    ProcessCounters r;
    probe.fill(r);
    return r;
}

} // namespace

class TestGcCountsProbe : public QObject {
    Q_OBJECT

private slots:
    void inlineCountsAndRunningTotals() {
        auto owned = std::make_unique<test::FakeMemory>();
        test::FakeMemory& mem = *owned;
        mem.map(kStats, 72);
        putInline(mem, {12, 1, 1}, {7, 7, 11});
        GcCountsProbe probe(std::move(owned), kStats, inlineLayout());
        ProcessCounters r = fillFrom(probe);
        QVERIFY(r.gcKnown);
        QCOMPARE(r.gcCollections, (std::array<uint64_t, 3>{12, 1, 1}));
        QCOMPARE(r.gcCollected, uint64_t(25));
        // A count that goes back (read mid-write, or a lie) is not taken...
        putInline(mem, {11, 1, 1}, {7, 7, 11});
        QVERIFY(!fillFrom(probe).gcKnown);
        putInline(mem, {12, 1, 1}, {7, 6, 11});
        QVERIFY(!fillFrom(probe).gcKnown);
        // ...nor a negative or impossible one; the next good one is.
        putInline(mem, {-1, 1, 1}, {7, 7, 11});
        QVERIFY(!fillFrom(probe).gcKnown);
        putInline(mem, {int64_t{1} << 60, 1, 1}, {7, 7, 11});
        QVERIFY(!fillFrom(probe).gcKnown);
        putInline(mem, {13, 1, 2}, {9, 7, 20});
        r = fillFrom(probe);
        QVERIFY(r.gcKnown);
        QCOMPARE(r.gcCollections, (std::array<uint64_t, 3>{13, 1, 2}));
        QCOMPARE(r.gcCollected, uint64_t(36));
        // Gone memory: not known.
        mem.unmap(kStats);
        QVERIFY(!fillFrom(probe).gcKnown);
    }

    // 3.15: a pointer to three rings of cumulative 64-byte entries; the latest total of
    // each generation is items[index].
    void ringsTakeTheLatestEntry() {
        auto owned = std::make_unique<test::FakeMemory>();
        test::FakeMemory& mem = *owned;
        mem.map(kStats, 8);
        mem.put<uint64_t>(kStats, kRings);
        mem.map(kRings, 1120);
        const uint64_t items[3] = {0, 712, 912}, index[3] = {704, 904, 1104};
        for (int g = 0; g < 3; ++g) {
            // A stale entry at slot 0, the latest at slot 2 (1 for a 3-entry ring).
            const uint64_t latest = g == 0 ? 2 : 1;
            mem.put<int64_t>(kRings + items[g] + 16, 1);
            mem.put<int64_t>(kRings + items[g] + latest * 64 + 16, 10 * (g + 1));
            mem.put<int64_t>(kRings + items[g] + latest * 64 + 24, 100);
            mem.put<int8_t>(kRings + index[g], int8_t(latest));
        }
        mem.put<uint32_t>(kRings + 1112, 14);
        GcCountsProbe probe(std::move(owned), kStats, ringLayout(1120));
        ProcessCounters r = fillFrom(probe);
        QVERIFY(r.gcKnown);
        QCOMPARE(r.gcCollections, (std::array<uint64_t, 3>{10, 20, 30}));
        QCOMPARE(r.gcCollected, uint64_t(300));

        // A writer inside (odd count): not known.
        mem.put<uint32_t>(kRings + 1112, 15);
        QVERIFY(!fillFrom(probe).gcKnown);
        // A write that starts and ends during the copy: the count moved, not known.
        mem.put<uint32_t>(kRings + 1112, 16);
        int reads = 0;
        mem.beforeRead = [&](uint64_t addr) {
            if (addr == kRings && ++reads == 1) mem.put<uint32_t>(kRings + 1112, 18);
        };
        QVERIFY(!fillFrom(probe).gcKnown);
        mem.beforeRead = nullptr;
        QVERIFY(fillFrom(probe).gcKnown);
        // An index outside its ring (3 entries), or negative: not known.
        mem.put<int8_t>(kRings + 904, 3);
        QVERIFY(!fillFrom(probe).gcKnown);
        mem.put<int8_t>(kRings + 904, -1);
        QVERIFY(!fillFrom(probe).gcKnown);
        mem.put<int8_t>(kRings + 904, 1);
        QVERIFY(fillFrom(probe).gcKnown);
        // A null pointer: not known.
        mem.put<uint64_t>(kStats, 0);
        QVERIFY(!fillFrom(probe).gcKnown);
    }

    // Where gilscope locates them, and where it will not guess.
    void locatedOnlyWhereMeasured() {
        QVERIFY(inlineLayout().valid());
        QCOMPARE(inlineLayout().size, uint64_t(72));
        PythonLayout l313;
        l313.minor = 13;
        locateGcStatsFromDebugOffsets(l313, 7400, 200, 0, 0);
        QCOMPARE(l313.inGcStats, uint64_t(7528));
        PythonLayout l314;
        l314.minor = 14;
        locateGcStatsFromDebugOffsets(l314, 7408, 192, 0, 0);
        QCOMPARE(l314.inGcStats, uint64_t(7528));
        // A build whose `collecting` moved is not the one measured: not located.
        PythonLayout moved;
        moved.minor = 14;
        locateGcStatsFromDebugOffsets(moved, 7408, 200, 0, 0);
        QCOMPARE(moved.inGcStats, kAbsent);
        QVERIFY(!moved.gcStats.valid());
        // 3.15: 3.15.0's struct (no update_seq) and 3.15.1+; any other size is unknown.
        QVERIFY(ringLayout(1112).valid());
        QCOMPARE(ringLayout(1112).seq, kAbsent);
        QCOMPARE(ringLayout(1120).seq, uint64_t(1112));
        QVERIFY(!ringLayout(1000).valid());
        QVERIFY(!ringLayout(4096).valid());
        // A free-threaded 3.15t's rings are smaller, and were never read: not located.
        PythonLayout ft;
        ft.minor = 15;
        ft.freeThreaded = true;
        locateGcStatsFromDebugOffsets(ft, 7400, 112, 104, 224);
        QVERIFY(!ft.gcStats.valid());
        // A layout whose pieces lie outside its copy is refused before any read.
        GcStatsLayout bad = inlineLayout();
        bad.generations[2].items = 64;
        QVERIFY(!bad.valid());
        bad = ringLayout(1120);
        bad.generations[0].index = 1120;
        QVERIFY(!bad.valid());
        bad = ringLayout(1120);
        bad.seq = 1118;
        QVERIFY(!bad.valid());
        QVERIFY(!makeGcCountsProbe(1, PythonLayout{}, 0x1000, 0x2000));
    }
};

QTEST_GUILESS_MAIN(TestGcCountsProbe)
#include "test_gc_counts_probe.moc"
