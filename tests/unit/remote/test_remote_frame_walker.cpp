// FrameWalker against made-up memory (FakeMemory): the chains a live process produces
// only by bad luck - torn mid-walk, pointing into garbage, looping, cut off halfway - and
// well-formed ones to show the same set-up walks when nothing is wrong. Each torn case
// checks the walk fails with the reason its guard gives: without the guard the walk
// would either return the torn stack or fail later for another reason.
#include "core/remote/code_cache.h"
#include "core/remote/frame_walker.h"
#include "tests/unit/remote/fake_python.h"

#include <QTest>

#include <memory>

using namespace gilscope;
using namespace gilscope::remote;
using gilscope::test::FakeMemory;
using gilscope::test::FakePython;

namespace {

constexpr uint32_t kPy310 = 0x030A0DF0, kPy311 = 0x030B07F0, kPy312 = 0x030C01F0;

// A walker over a FakeMemory for one built-in layout.
struct Rig {
    explicit Rig(uint32_t versionHex)
        : layout(builtinLayout(versionHex).value()), py(mem, layout),
          codes(mem, layout, registry, 0, false), walker(mem, layout, registry, codes, false),
          tstate(layout.tsSize) {}

    bool walk() {
        frames.clear();
        return walker.walk(tstate, frames, ahead);
    }
    void setTstate(uint64_t off, uint64_t value) { std::memcpy(tstate.data() + off, &value, 8); }
    QStringList names() const {
        QStringList s;
        for (FrameId id : frames) {
            const FrameInfo& f = registry.frame(id);
            s << QStringLiteral("%1:%2")
                     .arg(QString::fromStdString(registry.string(f.funcname)))
                     .arg(f.line);
        }
        return s;
    }

    FakeMemory mem;
    PythonLayout layout;
    FakePython py;
    FrameRegistry registry;
    CodeCache codes;
    FrameWalker walker;
    FrameWalker::Prefetch ahead;
    std::vector<uint8_t> tstate;
    std::vector<FrameId> frames;
};

// 3.11+: main -> mid (in the thread's datastack chunk) -> gen (a generator's frame on the
// heap) -> leaf (back in the chunk), as a thread sits in a generator it resumed. 3.12
// starts the chunk with the eval loop's shim frame, 3.11 marks main as the entry frame.
struct ModernChain : Rig {
    explicit ModernChain(uint32_t hex) : Rig(hex) {
        const uint64_t fr = layout.frSize;
        chunk = py.alloc(16 << 10);
        mem.put<uint64_t>(chunk + 8, 16 << 10); // _PyStackChunk.size
        uint64_t slot = chunk + 24;
        uint64_t below = 0;
        if (layout.minor >= 12) {
            py.modernFrame(slot, py.code("<shim>", 0, "<shim>"), 0, 3);
            below = slot;
            slot += fr;
        }
        main = slot;
        py.modernFrame(main, py.code("main", 10), below, 0, true);
        mid = slot + fr;
        py.modernFrame(mid, py.code("mid", 20), main, 0);
        gen = py.alloc(fr);
        py.modernFrame(gen, py.code("gen", 30), mid, 1); // FRAME_OWNED_BY_GENERATOR
        leaf = slot + 2 * fr;
        leafCode = py.code("leaf", 40);
        py.modernFrame(leaf, leafCode, gen, 0);
        cframe = py.alloc(64);
        mem.put<uint64_t>(cframe + layout.cfCurrentFrame, leaf);
        setTstate(layout.tsCframe, cframe);
        setTstate(layout.tsDatastackChunk, chunk);
        setTstate(layout.tsDatastackTop, leaf + fr);
    }
    // The thread state at an address of its own, the walker told where: the stack's top
    // is read again there after the chunk.
    uint64_t threadStateInMemory() {
        const uint64_t ts = py.alloc(layout.tsSize);
        mem.putBytes(ts, tstate.data(), tstate.size());
        ahead.tstateAddr = ts;
        return ts;
    }
    // main() returned from mid(), and called sleeper() into its slot: the leaf's slot
    // above keeps the leaf's old bytes, and the top is now the end of sleeper's frame, a
    // word shorter than mid's (fewer locals).
    void callSleeperIntoMid(uint64_t ts) {
        py.modernFrame(mid, py.code("sleeper", 50), main, 0);
        mem.put<uint64_t>(ts + layout.tsDatastackTop, mid + layout.frSize - 8);
    }
    // The thread runs `frame` now, the top of its stack at `top` (3.11/3.12 keep the
    // current frame in the C stack's cframe, 3.13+ in the thread state).
    void runsNow(uint64_t ts, uint64_t frame, uint64_t top) {
        if (layout.tsCframe != kAbsent)
            mem.put<uint64_t>(cframe + layout.cfCurrentFrame, frame);
        else
            setTstate(layout.tsCurrentFrame, frame);
        setTstate(layout.tsDatastackTop, top);
        mem.putBytes(ts, tstate.data(), tstate.size());
    }
    uint64_t chunk = 0, cframe = 0, main = 0, mid = 0, gen = 0, leaf = 0, leafCode = 0;
};

// <= 3.10: main -> a -> b -> leaf, PyFrameObjects linked through f_back.
struct LegacyChain : Rig {
    explicit LegacyChain(uint32_t hex = kPy310) : Rig(hex) {
        main = py.legacyFrame(py.code("main", 10), 0);
        a = py.legacyFrame(py.code("a", 20), main);
        b = py.legacyFrame(py.code("b", 30), a);
        leaf = py.legacyFrame(py.code("leaf", 40), b);
        setTstate(layout.tsFrame, leaf);
        setRecursionDepth(4);
    }
    void setRecursionDepth(int32_t d) {
        std::memcpy(tstate.data() + layout.tsRecursionDepth, &d, 4);
    }
    uint64_t main = 0, a = 0, b = 0, leaf = 0;
};

const QStringList kModernStack{"leaf:41", "gen:31", "mid:21", "main:11"};
const QStringList kLegacyStack{"leaf:41", "b:31", "a:21", "main:11"};

} // namespace

class TestRemoteFrameWalker : public QObject {
    Q_OBJECT
private slots:
    void modernWellFormed_data() { modernRows(); }
    void modernWellFormed() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kModernStack);
        // Steady state: the same stack again, the chunk and cframe word in one read, the
        // generator frame (outside the chunk) in one more.
        const size_t before = c.mem.calls();
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kModernStack);
        QCOMPARE(c.mem.calls() - before, size_t{2});
    }

    // 3.12: C code that called back into Python puts an eval loop's entry frame (the
    // "<shim>" trampoline, owned by the C stack) between the caller's frames and the
    // callback's. One caught half set up, its C stack slot still holding an older frame's
    // owner, is a torn read: skipped, it would join two eval loops' runs into one.
    void entryFrameHalfSetUpIsTorn() {
        ModernChain c(kPy312);
        const uint64_t entry = c.py.alloc(c.layout.frSize);
        c.py.modernFrame(entry, c.py.code("<shim>", 0, "<shim>"), c.main, 3);
        c.mem.put<uint64_t>(c.mid + c.layout.frPrevious, entry);
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kModernStack);               // the shim is no Python frame
        c.mem.put<uint8_t>(entry + c.layout.frOwner, 0); // FRAME_OWNED_BY_THREAD
        QVERIFY(!c.walk());
        QVERIFY2(c.walker.why().find("half set up") != std::string::npos, c.walker.why().c_str());
    }

    // 3.11 with --native-stacks: a leaf that has not started may be a callback's frame
    // that its eval loop has not marked as its entry yet, so its run would join its
    // caller's; the read is torn. Without native stacks CPython's rule stands: the frame
    // shows at its first line.
    void notStartedLeafIsTornForNativeStacks() {
        ModernChain c(kPy311);
        c.mem.put<uint64_t>(c.leaf + c.layout.frInstr, c.py.instr(c.leafCode) - 4);
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names().first(), QStringLiteral("leaf:40"));
        std::vector<EvalEntry> entries;
        c.walker.setEvalEntries(&entries);
        QVERIFY(!c.walk());
        QVERIFY2(c.walker.why().find("entering its eval loop") != std::string::npos,
                 c.walker.why().c_str());
        c.mem.put<uint64_t>(c.leaf + c.layout.frInstr, c.py.instr(c.leafCode)); // started
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kModernStack);
    }

    // A start-up interpreter frees a short-lived code object (a .pth line's exec) and puts
    // one of the program's functions at its address at once, with the instruction pointer
    // inside the old bytecode's range. A frame of another module's globals running "the
    // cached" code object gives it away: the name must be the new one, not the cached one.
    void modernCodeAddressReused_data() { modernRows(); }
    void modernCodeAddressReused() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        QVERIFY(c.layout.frGlobals != kAbsent);
        c.mem.put<uint64_t>(c.leaf + c.layout.frGlobals, 0x5000); // site's globals
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names().first(), QStringLiteral("leaf:41"));
        // Freed, and the address reused by a function of __main__.
        c.mem.put<uint64_t>(c.leafCode + c.layout.coName, c.py.str("heavy_work"));
        if (c.layout.coQualname != kAbsent)
            c.mem.put<uint64_t>(c.leafCode + c.layout.coQualname, c.py.str("heavy_work"));
        c.mem.put<int32_t>(c.leafCode + c.layout.coFirstlineno, 90);
        c.mem.put<uint64_t>(c.leaf + c.layout.frGlobals, 0x6000); // __main__'s globals
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names().first(), QStringLiteral("heavy_work:91"));
    }

    // The generator is suspended between the chunk's copy and the read of its frame:
    // its frame no longer leads back to the thread, and the chain ends short of the base.
    void modernTornMidWalk_data() { modernRows(); }
    void modernTornMidWalk() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        c.mem.beforeRead = [&](uint64_t addr) {
            if (addr == c.gen) c.mem.put<uint64_t>(c.gen + c.layout.frPrevious, 0);
        };
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "the frame chain does not reach the thread's base (torn read)");
    }

    // Between the read of the current frame pointer and the chunk's copy, the thread
    // returned to main() and called sleeper() into mid()'s slot: the copy chains the old
    // leaf to a caller it never had (seen once on 3.11 in CI). The stack's top, read
    // again after the copy, is below the leaf's start. Without the check the walk would
    // return leaf, gen, sleeper, main as a real stack.
    void modernLeafLeftDuringTheCopy_data() { modernRows(); }
    void modernLeafLeftDuringTheCopy() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        const uint64_t ts = c.threadStateInMemory();
        QVERIFY(c.walk()); // the top read again agrees: nothing moved
        QCOMPARE(c.names(), kModernStack);
        // The leaf returned alone: its caller runs on, unchanged, and the stack stands as
        // read a moment before (fast recursion does this all the time).
        c.ahead = {};
        c.ahead.tstateAddr = ts;
        c.mem.beforeRead = [&](uint64_t) {
            c.mem.put<uint64_t>(ts + c.layout.tsDatastackTop, c.leaf);
        };
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kModernStack);
        c.ahead = {};
        c.ahead.tstateAddr = ts;
        c.mem.beforeRead = [&](uint64_t) { c.callSleeperIntoMid(ts); };
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "a frame left the stack while it was read (torn read)");
    }

    // A torn walk is read again at once (issue 34) with the same read-ahead state: the
    // new walk shows the stack as it is now, sleeper() under main(), and nothing of the
    // torn copy (leaf, gen) is stitched into it.
    void modernRereadAfterTearIsWhole_data() { modernRows(); }
    void modernRereadAfterTearIsWhole() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        const uint64_t ts = c.threadStateInMemory();
        c.mem.beforeRead = [&](uint64_t) { c.callSleeperIntoMid(ts); };
        QVERIFY(!c.walk());
        c.mem.beforeRead = nullptr;
        // The thread settled in sleeper(); the reader copies its thread state again.
        c.runsNow(ts, c.mid, c.mid + c.layout.frSize);
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), (QStringList{"sleeper:51", "main:11"}));
    }

    // The same, with the chunk and the top read ahead in the thread state's syscall.
    void modernLeafLeftDuringTheReadAhead_data() { modernRows(); }
    void modernLeafLeftDuringTheReadAhead() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        const uint64_t ts = c.threadStateInMemory();
        for (bool moves : {false, true}) {
            QVERIFY(c.walk()); // learns the chunk (and 3.11's cframe word)
            std::vector<iovec> local, remote;
            const size_t planned = c.walker.planPrefetch(c.ahead, local, remote);
            QVERIFY(planned >= 2);
            QCOMPARE(reinterpret_cast<uint64_t>(remote.back().iov_base),
                     ts + c.layout.tsDatastackTop);
            if (moves) c.mem.beforeRead = [&](uint64_t) { c.callSleeperIntoMid(ts); };
            c.walker.prefetchArrived(c.ahead, c.mem.readMany(local, remote));
            c.mem.beforeRead = nullptr;
            QVERIFY(c.ahead.chunkOk && c.ahead.topOk);
            const size_t calls = c.mem.calls();
            QCOMPARE(c.walk(), !moves);
            if (moves)
                QCOMPARE(c.walker.why(), "a frame left the stack while it was read (torn read)");
            else
                QCOMPARE(c.names(), kModernStack);
            QCOMPARE(c.mem.calls(), calls); // all read ahead: the walk reads nothing more
        }
    }

    // The frame before the leaf was freed and its memory reused for something else.
    void modernPreviousIntoGarbage_data() { modernRows(); }
    void modernPreviousIntoGarbage() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        const uint64_t garbage = c.py.alloc(256);
        for (uint64_t o = 0; o < 256; o += 8)
            c.mem.put<uint64_t>(garbage + o, 0xabababababababab);
        c.mem.put<uint64_t>(c.leaf + c.layout.frPrevious, garbage);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "not a frame (torn read)");

        c.mem.put<uint64_t>(c.leaf + c.layout.frPrevious, 0x1234567); // not 8-aligned
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "invalid frame pointer");
    }

    // gen -> other -> gen: found within two laps, not after a million frames.
    void modernLoop_data() { modernRows(); }
    void modernLoop() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        const uint64_t other = c.py.alloc(c.layout.frSize);
        c.py.modernFrame(other, c.py.code("other", 50), c.gen, 1);
        c.mem.put<uint64_t>(c.gen + c.layout.frPrevious, other);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "frame chain loops");
        QVERIFY2(c.mem.calls() < 50, qPrintable(QString::number(c.mem.calls())));
        // A frame that is its own caller.
        c.mem.put<uint64_t>(c.gen + c.layout.frPrevious, c.gen);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "frame chain loops");
    }

    // Item 8: the thread's older stack chunks link back to one already read. Each lap
    // used to be read again (up to 4,096 chunks) before the walk went on; the sample's
    // seen-set stops at the second visit.
    void modernChunkLoop_data() { modernRows(); }
    void modernChunkLoop() {
        QFETCH(uint32_t, hex);
        for (const bool toCurrent : {false, true}) {
            ModernChain c(hex);
            constexpr uint64_t kOlder = 64 << 10;
            const uint64_t older = c.py.alloc(kOlder);
            c.mem.put<uint64_t>(older + 8, kOlder);                  // its size
            c.mem.put<uint64_t>(older, toCurrent ? c.chunk : older); // and back again
            c.mem.put<uint64_t>(c.chunk, older); // the current chunk's previous chunk
            c.walker.budget().begin();
            QVERIFY(!c.walk());
            QCOMPARE(c.walker.why(), "the stack's chunks form a loop (torn read)");
            QVERIFY2(c.mem.calls() < 20, qPrintable(QString::number(c.mem.calls())));
            // The retry of a torn walk within the same sample reads the same chunks again:
            // a walk's chunks are not a loop for the next walk.
            c.mem.put<uint64_t>(older, 0);
            QVERIFY2(c.walk(), c.walker.why().c_str());
            QCOMPARE(c.names(), kModernStack);
        }
    }

    // Item 8: older chunks, each as large as CPython allows (16 MiB), more than one
    // sample's budget in all: the walk stops at the budget instead of reading them all.
    void modernSampleBudget_data() { modernRows(); }
    void modernSampleBudget() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        constexpr uint64_t kBig = 16 << 20;
        uint64_t link = c.chunk;
        for (size_t i = 0; i <= SampleBudget::kMaxBytes / kBig; ++i) {
            const uint64_t older = c.py.alloc(kBig);
            c.mem.put<uint64_t>(older + 8, kBig);
            c.mem.put<uint64_t>(link, older);
            link = older;
        }
        c.walker.budget().begin();
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), SampleBudget::exhaustedMessage());
        // The budget spans the sample: what is left of it does not cover another lap.
        QVERIFY(!c.walk());
        c.mem.put<uint64_t>(c.chunk, 0);
        c.walker.budget().begin(); // a new sample
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kModernStack);
    }

    // Item 8: <= 3.10 reads frame objects one by one; a chain of distinct frames that
    // never ends is stopped by the same budget, long before a million frames.
    void legacySampleBudget() {
        LegacyChain c;
        c.setRecursionDepth(1 << 30);
        const uint64_t code = c.py.code("deep", 60);
        uint64_t below = 0;
        for (int i = 0; i < 2000; ++i)
            below = c.py.legacyFrame(code, below);
        c.mem.put<uint64_t>(c.main + c.layout.frPrevious, below);
        c.walker.budget().begin();
        QVERIFY2(c.walk(), c.walker.why().c_str()); // 2,004 frames fit in one sample
        c.walker.budget().begin();
        QVERIFY(c.walker.budget().spend(SampleBudget::kMaxBytes - 1000 * c.layout.frSize));
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), SampleBudget::exhaustedMessage());
    }

    // Reads stop working halfway (the process unmaps, or exits): a clear error.
    void modernTruncated_data() { modernRows(); }
    void modernTruncated() {
        QFETCH(uint32_t, hex);
        ModernChain c(hex);
        QVERIFY(c.walk()); // code objects cached: the chunk read then the generator's frame
        c.mem.failAfterCalls = c.mem.calls() + 1;
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "cannot read a frame");

        ModernChain fresh(hex); // nothing cached: the first code object read fails
        fresh.mem.failAfterCalls = 1;
        QVERIFY(!fresh.walk());
        QCOMPARE(fresh.walker.why(), "cannot read a code object");

        ModernChain gone(hex); // the generator's frame is unmapped
        gone.mem.unmap(gone.gen);
        QVERIFY(!gone.walk());
        QCOMPARE(gone.walker.why(), "cannot read a frame");
    }

    void legacyWellFormed_data() { legacyRows(); }
    void legacyWellFormed() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kLegacyStack);
        // Again: the remembered chain in one read, nothing else (the code objects are held).
        const size_t before = c.mem.calls();
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kLegacyStack);
        QCOMPARE(c.mem.calls() - before, size_t{1});
    }

    // A caller returns while we read: its frame goes to the free list, is reused for a
    // call not yet running, and the remembered chain read in one piece must notice.
    void legacyTornMidWalk_data() { legacyRows(); }
    void legacyTornMidWalk() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        QVERIFY(c.walk());
        c.mem.beforeRead = [&](uint64_t) { c.py.setExecuting(c.a, false); };
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "a caller frame is not running (torn read)");
    }

    // The same for <= 3.10: a walk torn as a caller returned is read again with the chain
    // it remembered; the thread now runs a new frame under main(), and the new walk shows
    // exactly that, not the remembered frames above main.
    void legacyRereadAfterTearIsWhole_data() { legacyRows(); }
    void legacyRereadAfterTearIsWhole() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        QVERIFY(c.walk());
        c.mem.beforeRead = [&](uint64_t) { c.py.setExecuting(c.a, false); };
        QVERIFY(!c.walk());
        c.mem.beforeRead = nullptr;
        const uint64_t other = c.py.legacyFrame(c.py.code("other", 60), c.main);
        c.setTstate(c.layout.tsFrame, other);
        c.setRecursionDepth(2);
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), (QStringList{"other:61", "main:11"}));
    }

    void legacyFreedFrame_data() { legacyRows(); }
    void legacyFreedFrame() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        c.mem.put<int64_t>(c.b + c.layout.frRefcnt, 0);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "a frame was freed while being read (torn read)");
    }

    // A generator frame read after it was suspended has lost its f_back: the chain ends
    // there, at a frame not being evaluated, and is no stack of the thread.
    void legacyEndsAtSuspendedFrame_data() { legacyRows(); }
    void legacyEndsAtSuspendedFrame() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        c.mem.put<uint64_t>(c.b + c.layout.frPrevious, 0);
        c.py.setExecuting(c.b, false);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "the frame chain ends at a frame that is not running (torn read)");
    }

    // A generator's frame copied with the f_back it had while suspended (none) but
    // already running again: it looks like a thread's first frame, which a generator's
    // never is. In the middle of a chain it is fine.
    void legacyEndsAtRunningGeneratorFrame_data() { legacyRows(); }
    void legacyEndsAtRunningGeneratorFrame() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        uint64_t bCode = 0;
        QCOMPARE(c.mem.readPartial(c.b + c.layout.frCode, &bCode, 8), size_t{8});
        c.mem.put<int32_t>(bCode + c.layout.coFlags, 0x20 | 0x3); // CO_GENERATOR
        QVERIFY2(c.walk(), c.walker.why().c_str());
        QCOMPARE(c.names(), kLegacyStack);
        c.mem.put<uint64_t>(c.b + c.layout.frPrevious, 0);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "the frame chain ends at a generator's frame (torn read)");
    }

    void legacyLongerThanRecursionDepth_data() { legacyRows(); }
    void legacyLongerThanRecursionDepth() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        c.setRecursionDepth(2); // three frames at most; the chain has four
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(),
                 "frame chain longer than the thread's recursion depth (torn read)");
    }

    void legacyLoop_data() { legacyRows(); }
    void legacyLoop() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        c.setRecursionDepth(1 << 30); // a torn depth: no help bounding the walk
        c.mem.put<uint64_t>(c.a + c.layout.frPrevious, c.b); // b -> a -> b
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "frame chain loops");
        QVERIFY2(c.mem.calls() < 50, qPrintable(QString::number(c.mem.calls())));
    }

    void legacyTruncated_data() { legacyRows(); }
    void legacyTruncated() {
        QFETCH(uint32_t, hex);
        LegacyChain c(hex);
        c.mem.unmap(c.a);
        QVERIFY(!c.walk());
        QCOMPARE(c.walker.why(), "cannot read a frame");
        // Remembered chain: the batch stops at the gap; the single read there fails too.
        LegacyChain again(hex);
        QVERIFY(again.walk());
        again.mem.unmap(again.a);
        QVERIFY(!again.walk());
        QCOMPARE(again.walker.why(), "cannot read a frame");
    }

private:
    static void modernRows() {
        QTest::addColumn<uint32_t>("hex");
        QTest::newRow("3.11") << kPy311;
        QTest::newRow("3.12") << kPy312;
    }
    static void legacyRows() {
        QTest::addColumn<uint32_t>("hex");
        QTest::newRow("3.8") << uint32_t{0x030812F0};
        QTest::newRow("3.9") << uint32_t{0x030912F0};
        QTest::newRow("3.10") << kPy310;
    }
};

QTEST_GUILESS_MAIN(TestRemoteFrameWalker)
#include "test_remote_frame_walker.moc"
