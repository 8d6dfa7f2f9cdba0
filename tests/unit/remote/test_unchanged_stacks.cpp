// The sampler's shortcuts for many threads, over a made-up memory where a real process
// cannot be made to show the case: batches past IOV_MAX, a range gone mid-batch, and
// UnchangedStacks' rule for serving a stack without reading it (the GIL's switch counter).
// tests/integration/remote/test_unchanged_live.cpp checks the same on real interpreters.
#include "core/remote/unchanged_stacks.h"
#include "tests/unit/remote/fake_memory.h"

#include <QTest>

#include <vector>

using namespace gilscope;
using gilscope::remote::UnchangedStacks;
using gilscope::test::FakeMemory;

namespace {

struct Batch {
    std::vector<uint64_t> values;
    std::vector<iovec> local, remote;
};

// n ranges of 8 bytes, each from its own 16-byte slot of a region at base.
Batch planBatch(FakeMemory& mem, uint64_t base, size_t n) {
    mem.map(base, n * 16);
    for (size_t i = 0; i < n; ++i)
        mem.put<uint64_t>(base + i * 16, 1000 + i);
    Batch b;
    b.values.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        b.local.push_back({&b.values[i], 8});
        b.remote.push_back({reinterpret_cast<void*>(base + i * 16), 8});
    }
    return b;
}

const std::vector<FrameId> kStackA{FrameId{11}, FrameId{12}, FrameId{13}};
const std::vector<FrameId> kStackB{FrameId{21}, FrameId{22}};

} // namespace

class TestUnchangedStacks : public QObject {
    Q_OBJECT
private slots:
    void fakeMemoryRefusesPastIovMax() {
        // What the kernel does; without it readBatch's split would go untested.
        FakeMemory mem;
        Batch b = planBatch(mem, 0x10000, remote::kMaxReadRanges + 1);
        QCOMPARE(mem.readMany(b.local, b.remote), size_t{0});
        QCOMPARE(mem.lastErrno(), EINVAL);
    }

    void batchPastIovMaxIsSplit() {
        FakeMemory mem;
        Batch b = planBatch(mem, 0x10000, 2500);
        QCOMPARE(mem.readBatch(b.local, b.remote), size_t{2500});
        QCOMPARE(mem.calls(), size_t{3}); // 1024 + 1024 + 452
        for (size_t i = 0; i < b.values.size(); ++i)
            QCOMPARE(b.values[i], uint64_t(1000 + i));
    }

    void batchStopsAtTheFirstRangeGone() {
        // A thread exited mid-batch: what follows its range is read again by the caller,
        // one by one, never taken from a call that did not happen.
        FakeMemory mem;
        Batch b = planBatch(mem, 0x10000, 2000);
        b.remote[1500].iov_base = reinterpret_cast<void*>(0xdead0000);
        QCOMPARE(mem.readBatch(b.local, b.remote), size_t{1500});
        QCOMPARE(mem.calls(), size_t{2});
        QCOMPARE(b.values[1499], uint64_t(2499));
        QCOMPARE(b.values[1501], uint64_t{0});
    }

    void batchOfNothing() {
        FakeMemory mem;
        QCOMPARE(mem.readBatch({}, {}), size_t{0});
        QCOMPARE(mem.calls(), size_t{0});
    }

    void servedWhileTheCounterStands() {
        UnchangedStacks u;
        u.beginSample({7, 0xA000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        u.endSample();
        for (int i = 0; i < 3; ++i) {
            u.beginSample({7, 0xA000, true});
            std::vector<FrameId> out{FrameId{99}}; // served frames go after what is there (<GC>)
            QVERIFY(u.serve(0xB000, 42, 0xF000, out));
            QCOMPARE(out, (std::vector<FrameId>{FrameId{99}, FrameId{21}, FrameId{22}}));
            u.endSample();
        }
        QCOMPARE(u.served(), uint64_t{3});
    }

    void neverServedAfterASwitch() {
        // Another thread took the GIL since the walk: any thread may have run Python.
        UnchangedStacks u;
        u.beginSample({7, 0xA000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        u.beginSample({8, 0xA000, true});
        std::vector<FrameId> out;
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
        QVERIFY(out.empty());
        // Walked again at the new count, it is served from then on.
        u.store(0xB000, 42, 0xF000, kStackA);
        u.beginSample({8, 0xA000, true});
        QVERIFY(u.serve(0xB000, 42, 0xF000, out));
        QCOMPARE(out, kStackA);
    }

    void theLastHolderIsAlwaysWalked() {
        // The last holder takes the GIL again without moving the counter: it may have run.
        UnchangedStacks u;
        u.beginSample({7, 0xB000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        std::vector<FrameId> out;
        u.beginSample({7, 0xB000, true});
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
        // Held it when walked, another holds it now (the count moved with it, but even a
        // torn read of the two fields must not serve it).
        u.beginSample({7, 0xA000, true});
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
        QVERIFY(out.empty());
    }

    void anotherThreadAtTheSameAddressIsWalked() {
        UnchangedStacks u;
        u.beginSample({7, 0xA000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        std::vector<FrameId> out;
        u.beginSample({7, 0xA000, true});
        QVERIFY(!u.serve(0xB000, 43, 0xF000, out)); // thread id differs: a new thread
        QVERIFY(!u.serve(0xB000, 42, 0xF100, out)); // current frame differs
        QVERIFY(!u.serve(0xC000, 42, 0xF000, out)); // never walked
        QVERIFY(out.empty());
    }

    void unknownCounterServesNothing() {
        // A build without the counter (free-threaded) or a GIL we did not read.
        UnchangedStacks u;
        u.beginSample({7, 0xA000, false});
        u.store(0xB000, 42, 0xF000, kStackB);
        u.beginSample({7, 0xA000, true});
        std::vector<FrameId> out;
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
        u.beginSample({7, 0xA000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        u.beginSample({7, 0xA000, false});
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
    }

    void aTornWalkIsForgotten() {
        UnchangedStacks u;
        u.beginSample({7, 0xA000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        u.forget(0xB000); // the next walk of it failed
        u.beginSample({7, 0xA000, true});
        std::vector<FrameId> out;
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
    }

    void threadsNotSeenAreDropped() {
        UnchangedStacks u;
        u.beginSample({7, 0xA000, true});
        u.store(0xB000, 42, 0xF000, kStackB);
        u.endSample();
        for (int i = 0; i < 200; ++i) { // the thread is gone: nobody serves or stores it
            u.beginSample({7, 0xA000, true});
            u.endSample();
        }
        // Its entry went (memory stays bounded by the threads that are there).
        u.beginSample({7, 0xA000, true});
        std::vector<FrameId> out;
        QVERIFY(!u.serve(0xB000, 42, 0xF000, out));
    }
};

QTEST_GUILESS_MAIN(TestUnchangedStacks)
#include "test_unchanged_stacks.moc"
