// TaskGraphReader and buildTaskStacks against made-up memory (FakeMemory): asyncio's task
// lists, names, awaited_by sets and coroutine chains laid out as CPython 3.14+ keeps them,
// well-formed, cyclic and torn. A torn or looping graph must fail or stop, never loop and
// never turn into a stack.
#include "core/remote/async_stacks.h"
#include "core/remote/code_cache.h"
#include "core/remote/frame_walker.h"
#include "core/remote/task_graph.h"
#include "tests/unit/remote/fake_python.h"

#include <QTest>

using namespace gilscope;
using namespace gilscope::remote;
using gilscope::test::FakeMemory;
using gilscope::test::FakePython;

namespace {

// The frame and code offsets of 3.12 stand in for 3.14's: the reader takes every offset
// from its layouts, so only the shape of the objects matters here.
constexpr uint32_t kPy312 = 0x030C01F0;

AsyncioLayout fakeAsyncio(const PythonLayout& l) {
    AsyncioLayout a;
    a.taskSize = 0xa8;
    a.taskName = 0x88;
    a.taskAwaitedBy = 0x60;
    a.taskIsTask = 0x6c;
    a.taskAwaitedByIsSet = 0x6d;
    a.taskCoro = 0x80;
    a.taskNode = 0x98;
    a.genIframe = 0x48;
    a.genSize = 0x48 + l.frSize + 8;
    a.genFrameState = 0x43;
    a.frameCleared = 4;
    a.yieldFromFirst = a.yieldFromLast = -1;
    a.frStackpointer = 40; // f_locals in 3.12's frame: unused by the walker
    a.awaitedSlot = 16;
    a.tpFlags = 0xa8;
    a.setUsed = 0x18;
    a.setTable = 0x28;
    a.setMask = 0x20;
    a.longTag = 16;
    a.longDigits = 24;
    a.llistNext = 0;
    return a;
}

struct Rig {
    Rig()
        : layout(builtinLayout(kPy312).value()), async(fakeAsyncio(layout)), py(mem, layout),
          codes(mem, layout, registry, 0, false), walker(mem, layout, registry, codes, false),
          reader(mem, layout, async, walker) {
        strType = type(AsyncioLayout::kUnicodeSubclass);
        intType = type(AsyncioLayout::kLongSubclass);
        coroType = type(0);
        head = py.alloc(16);
        mem.put<uint64_t>(head, head); // an empty circular list
    }

    uint64_t type(uint64_t flags) {
        const uint64_t t = py.alloc(0x200);
        mem.put<uint64_t>(t + async.tpFlags, flags);
        return t;
    }
    uint64_t name(const std::string& s) {
        const uint64_t a = py.str(s);
        mem.put<uint64_t>(a + layout.obType, strType);
        return a;
    }
    uint64_t intName(uint32_t value) {
        const uint64_t a = py.alloc(64);
        mem.put<uint64_t>(a + layout.obType, intType);
        mem.put<uint64_t>(a + async.longTag, uint64_t{1} << 3); // one digit, positive
        mem.put<uint32_t>(a + async.longDigits, value);
        return a;
    }
    // A coroutine running `fn`, suspended; awaiting `awaited` (0: a future, not a coroutine).
    uint64_t coro(const std::string& fn, uint64_t awaited = 0) {
        const uint64_t c = py.alloc(async.genSize);
        mem.put<uint64_t>(c + layout.obType, coroType);
        const uint64_t frame = c + async.genIframe;
        py.modernFrame(frame, py.code(fn, 10), 0, AsyncioLayout::kOwnedByGenerator);
        const uint64_t stack = py.alloc(64);
        mem.put<uint64_t>(stack + 8, awaited); // the awaitable, second from the top
        mem.put<uint64_t>(frame + async.frStackpointer, stack + 24);
        mem.put<int8_t>(c + async.genFrameState, awaited ? -1 : -2); // YIELD_FROM / SUSPENDED
        return c;
    }
    uint64_t task(uint64_t nameObj, uint64_t coroObj) {
        const uint64_t t = py.alloc(async.taskSize);
        mem.put<uint8_t>(t + async.taskIsTask, 1);
        mem.put<uint64_t>(t + async.taskName, nameObj);
        mem.put<uint64_t>(t + async.taskCoro, coroObj);
        // Appended to the list at head (next pointers only: the reader follows those).
        uint64_t last = head;
        for (uint64_t n = 0; (n = at(last)) != head;)
            last = n;
        mem.put<uint64_t>(last, t + async.taskNode);
        mem.put<uint64_t>(t + async.taskNode, head);
        return t;
    }
    void awaitedBy(uint64_t t, uint64_t waiter) {
        mem.put<uint64_t>(t + async.taskAwaitedBy, waiter);
    }
    // awaited_by as a set; `dummy` adds a deleted slot (hash -1) before the members.
    void awaitedBySet(uint64_t t, std::vector<uint64_t> waiters, bool dummy = false) {
        const uint64_t set = py.alloc(0xc8);
        const uint64_t slotCount = 8, table = py.alloc(slotCount * 16);
        uint64_t slot = 1;
        if (dummy) {
            mem.put<uint64_t>(table + slot * 16, py.alloc(16));
            mem.put<int64_t>(table + slot * 16 + 8, -1);
            ++slot;
        }
        for (uint64_t w : waiters) {
            mem.put<uint64_t>(table + slot * 16, w);
            mem.put<int64_t>(table + slot * 16 + 8, int64_t(w >> 4));
            slot += 2;
        }
        mem.put<int64_t>(set + async.setUsed, int64_t(waiters.size()));
        mem.put<uint64_t>(set + async.setTable, table);
        mem.put<int64_t>(set + async.setMask, int64_t(slotCount - 1));
        mem.put<uint64_t>(t + async.taskAwaitedBy, set);
        mem.put<uint8_t>(t + async.taskAwaitedByIsSet, 1);
    }
    uint64_t at(uint64_t addr) {
        uint64_t v = 0;
        mem.read(addr, &v, 8);
        return v;
    }

    QStringList frames(const std::vector<FrameId>& ids) const {
        QStringList s;
        for (FrameId id : ids) {
            const FrameInfo& f = registry.frame(id);
            const QString fn = QString::fromStdString(registry.string(f.funcname));
            s << (registry.string(f.filename) == "<task>" ? "[" + fn + "]" : fn);
        }
        return s;
    }
    QList<QStringList> stacks(const std::vector<AsyncTask>& tasks) {
        std::vector<ThreadStack> out;
        size_t count = 0;
        buildTaskStacks(tasks, registry, out, count);
        QList<QStringList> s;
        for (size_t i = 0; i < count; ++i)
            s << frames(out[i].frames);
        std::sort(s.begin(), s.end());
        return s;
    }

    FakeMemory mem;
    PythonLayout layout;
    AsyncioLayout async;
    FakePython py;
    FrameRegistry registry;
    CodeCache codes;
    FrameWalker walker;
    TaskGraphReader reader;
    uint64_t strType = 0, intType = 0, coroType = 0, head = 0;
};

// main awaits workers a and b; a's coroutine awaits step(), which awaits a future.
struct ThreeTasks : Rig {
    ThreeTasks() {
        main = task(name("main"), coro("main_coro"));
        a = task(name("worker-a"), coro("worker", coro("step")));
        b = task(intName(7), coro("other"));
        awaitedBy(a, main);
        awaitedBySet(b, {main}, true);
    }
    uint64_t main = 0, a = 0, b = 0;
};

// The tables of CPython 3.15.2 as measured in the sid chroot: the AsyncioDebug section and
// the _Py_DebugOffsets words asyncio needs, at their positions.
std::vector<uint8_t> section315() {
    const uint64_t s[13] = {0xa8,    0x88,   0x60,  0x6c,  0x6d,  0x80, 0x98,
                            0x373c0, 0x2a68, 0x450, 0x400, 0x408, 0x418};
    std::vector<uint8_t> b(sizeof s);
    std::memcpy(b.data(), s, sizeof s);
    return b;
}
std::vector<uint8_t> debugOffsets315() {
    std::vector<uint8_t> t(888);
    const std::pair<size_t, uint64_t> words[] = {
        {0x138, 0x58}, {0x168, 0x40}, {0x1f8, 0xa8}, {0x250, 0xc8}, {0x258, 0x18},
        {0x260, 0x28}, {0x268, 0x20}, {0x2a0, 0x10}, {0x2a8, 0x18}, {0x318, 0xa0},
        {0x328, 0x48}, {0x330, 0x43}, {0x338, 0}};
    for (const auto& [pos, value] : words)
        std::memcpy(t.data() + pos, &value, 8);
    return t;
}

} // namespace

class TestTaskGraph : public QObject {
    Q_OBJECT
private slots:
    void asyncioLayoutFromTheTarget() {
        auto a = asyncioLayout(debugOffsets315(), section315(), 15, 0x58);
        QVERIFY2(a, a ? "" : a.error().message.c_str());
        QCOMPARE(a->taskNode, uint64_t{0x98});
        QCOMPARE(a->tsRunningTask, uint64_t{0x408});
        QCOMPARE(a->genIframe, uint64_t{0x48});
        QCOMPARE(a->awaitedSlot, uint64_t{16});
        // An offset outside its structure (a build gilscope does not know) is refused by name.
        auto section = section315();
        const uint64_t outside = 0x1000;
        std::memcpy(section.data() + 8, &outside, 8);
        auto bad = asyncioLayout(debugOffsets315(), section, 15, 0x58);
        QVERIFY(!bad);
        QVERIFY2(bad.error().message.find("task.name") != std::string::npos,
                 bad.error().message.c_str());
        // One near 2^64 wrapped into range when the check added offset and width.
        const uint64_t wrapping = ~uint64_t{0} - 3;
        std::memcpy(section.data() + 8, &wrapping, 8);
        auto wrapped = asyncioLayout(debugOffsets315(), section, 15, 0x58);
        QVERIFY(!wrapped);
        QVERIFY2(wrapped.error().message.find("task.name") != std::string::npos,
                 wrapped.error().message.c_str());
        QVERIFY(!asyncioLayout(debugOffsets315(), section315(), 13, 0x58));
        // The frame is bounded by the interpreter's checked frame size, not by the table's.
        auto big = asyncioLayout(debugOffsets315(), section315(), 15, 0x60);
        QVERIFY(!big);
        QVERIFY2(big.error().message.find("generator.frame") != std::string::npos,
                 big.error().message.c_str());
    }

    void allTasksWellFormed() {
        ThreeTasks r;
        std::vector<AsyncTask> tasks;
        QVERIFY2(r.reader.readTaskList(r.head, 42, tasks), r.reader.why().c_str());
        QCOMPARE(tasks.size(), size_t{3});
        QCOMPARE(tasks[0].name, std::string("main"));
        QCOMPARE(tasks[1].name, std::string("worker-a"));
        QCOMPARE(tasks[2].name, std::string("Task-7")); // unnamed: its counter, as CPython
        QCOMPARE(r.frames(tasks[1].frames), (QStringList{"step", "worker"})); // leaf first
        QCOMPARE(tasks[1].waiters, std::vector<uint64_t>{r.main});
        QCOMPARE(tasks[2].waiters, std::vector<uint64_t>{r.main}); // the deleted slot skipped
        QCOMPARE(tasks[0].threadId, uint64_t{42});
        // Each leaf task under its own name, over the task awaiting it.
        QCOMPARE(r.stacks(tasks),
                 (QList<QStringList>{{"other", "[Task-7]", "main_coro", "[main]"},
                                     {"step", "worker", "[worker-a]", "main_coro", "[main]"}}));
    }

    void severalParentsPickTheLowestAddress() {
        ThreeTasks r;
        const uint64_t other = r.task(r.name("other-parent"), r.coro("side"));
        r.awaitedBySet(r.a, {other, r.main});
        std::vector<AsyncTask> tasks;
        QVERIFY2(r.reader.readTaskList(r.head, 1, tasks), r.reader.why().c_str());
        const QString parent = r.main < other ? "main" : "other-parent";
        const QString parentCoro = r.main < other ? "main_coro" : "side";
        QVERIFY(r.stacks(tasks).contains(QStringList{"step", "worker", "[worker-a (2 parents)]",
                                                     parentCoro, "[" + parent + "]"}));
    }

    // a awaits b awaits a: both are parents, so no stack starts from them; a leaf under
    // the cycle climbs it once and stops where it closes.
    void cyclicAwaitedByEndsWhereItCloses() {
        Rig r;
        const uint64_t a = r.task(r.name("a"), r.coro("fa"));
        const uint64_t b = r.task(r.name("b"), r.coro("fb"));
        r.awaitedBy(a, b);
        r.awaitedBy(b, a);
        std::vector<AsyncTask> tasks;
        QVERIFY2(r.reader.readTaskList(r.head, 1, tasks), r.reader.why().c_str());
        QVERIFY(r.stacks(tasks).isEmpty());
        const uint64_t leaf = r.task(r.name("leaf"), r.coro("fl"));
        r.awaitedBy(leaf, a);
        tasks.clear();
        r.reader.beginSample();
        QVERIFY2(r.reader.readTaskList(r.head, 1, tasks), r.reader.why().c_str());
        QCOMPARE(r.stacks(tasks), (QList<QStringList>{{"fl", "[leaf]", "fa", "[a]", "fb", "[b]"}}));
        // --async-mode running climbs waiters from the running task: each task once.
        std::vector<AsyncTask> running(1);
        r.reader.beginSample();
        QVERIFY(r.reader.readTask(leaf, 1, true, running[0]));
        QVERIFY2(r.reader.readWaiters(0, running), r.reader.why().c_str());
        QCOMPARE(running.size(), size_t{3});
    }

    // A list node that points back at itself instead of at the head: found, not followed.
    void taskListLoopFails() {
        ThreeTasks r;
        r.mem.put<uint64_t>(r.b + r.async.taskNode, r.a + r.async.taskNode);
        std::vector<AsyncTask> tasks;
        QVERIFY(!r.reader.readTaskList(r.head, 1, tasks));
        QCOMPARE(r.reader.why(), std::string("task list loops (torn read)"));
    }

    // --async-mode all: a list read again in the same sample (every thread's head pointing
    // at one list) is a loop, not the same tasks read once more per thread.
    void taskListReadTwicePerSampleFails() {
        ThreeTasks r;
        std::vector<AsyncTask> tasks;
        r.reader.beginSample();
        QVERIFY2(r.reader.readTaskList(r.head, 1, tasks), r.reader.why().c_str());
        QVERIFY(!r.reader.readTaskList(r.head, 2, tasks));
        QCOMPARE(r.reader.why(), std::string("task list loops (torn read)"));
        r.reader.beginSample(); // the next sample reads them again
        QVERIFY2(r.reader.readTaskList(r.head, 1, tasks), r.reader.why().c_str());
    }

    // An awaited_by set claiming a huge table is refused before its table is read.
    void hugeAwaitedBySetFails() {
        ThreeTasks r;
        const uint64_t set = r.at(r.b + r.async.taskAwaitedBy);
        r.mem.put<int64_t>(set + r.async.setMask, int64_t{1} << 13);
        std::vector<AsyncTask> tasks;
        QVERIFY(!r.reader.readTaskList(r.head, 1, tasks));
        QCOMPARE(r.reader.why(), std::string("invalid awaited_by set (torn read)"));
    }

    // Tasks that each hold a large (legal) awaited_by table: one sample stops at its
    // budget of bytes instead of reading all of them.
    void sampleReadsAreBounded() {
        Rig r;
        const uint64_t set = r.py.alloc(0xc8), slotCount = TaskGraphReader::kMaxSetSlots;
        r.mem.put<uint64_t>(set + r.async.setTable, r.py.alloc(slotCount * 16));
        r.mem.put<int64_t>(set + r.async.setMask, int64_t(slotCount - 1));
        const uint64_t name = r.name("t");
        const size_t needed = SampleBudget::kMaxBytes / (slotCount * 16) + 1;
        for (size_t i = 0; i < needed; ++i) {
            const uint64_t t = r.task(name, 0);
            r.mem.put<uint64_t>(t + r.async.taskAwaitedBy, set);
            r.mem.put<uint8_t>(t + r.async.taskAwaitedByIsSet, 1);
        }
        std::vector<AsyncTask> tasks;
        r.reader.beginSample();
        QVERIFY(!r.reader.readTaskList(r.head, 1, tasks));
        QVERIFY2(r.reader.why().find("64 MiB") != std::string::npos, r.reader.why().c_str());
    }

    // A coroutine smaller than the frame it embeds (a lying genSize): refused, never a
    // frame read past the end of the coroutine's copy.
    void coroutineFrameOutsideCoroutineFails() {
        Rig r;
        r.task(r.name("t"), r.coro("f"));
        r.async.genSize = r.async.genIframe + 16;
        std::vector<AsyncTask> tasks;
        QVERIFY(!r.reader.readTaskList(r.head, 1, tasks));
        QCOMPARE(r.reader.why(), std::string("a coroutine's frame lies outside the coroutine"));
    }

    // A task freed while the list was walked: its node now points into unmapped memory.
    void tornTaskFails() {
        ThreeTasks r;
        r.mem.put<uint64_t>(r.a + r.async.taskNode, 0x7e0000001000);
        std::vector<AsyncTask> tasks;
        QVERIFY(!r.reader.readTaskList(r.head, 1, tasks));
        QCOMPARE(r.reader.why(), std::string("cannot read a task"));
        // A waiter that has gone: the running task's chain is not shown without it.
        ThreeTasks w;
        w.awaitedBy(w.a, 0x7e0000002000);
        std::vector<AsyncTask> running(1);
        QVERIFY(w.reader.readTask(w.a, 1, true, running[0]));
        QVERIFY(!w.reader.readWaiters(0, running));
        // A name that is neither str nor int (its memory reused for something else).
        ThreeTasks n;
        n.mem.put<uint64_t>(n.a + n.async.taskName, n.coro("not-a-name"));
        QVERIFY(!n.reader.readTask(n.a, 1, true, running[0]));
        QCOMPARE(n.reader.why(), std::string("task name is neither str nor int"));
    }

    // A coroutine that awaits itself (a torn stack slot): the chain is bounded.
    void coroutineChainLoopIsBounded() {
        Rig r;
        const uint64_t c = r.coro("self");
        const uint64_t frame = c + r.async.genIframe;
        const uint64_t sp = r.at(frame + r.async.frStackpointer);
        r.mem.put<uint64_t>(sp - 16, c);
        r.mem.put<int8_t>(c + r.async.genFrameState, -1);
        r.task(r.name("t"), c);
        std::vector<AsyncTask> tasks;
        QVERIFY(!r.reader.readTaskList(r.head, 1, tasks));
        QCOMPARE(r.reader.why(), std::string("coroutine chain loops (torn read)"));
    }

    // A finished coroutine (FRAME_CLEARED) shows no frame; its task still shows.
    void clearedCoroutineShowsTaskOnly() {
        Rig r;
        const uint64_t c = r.coro("done");
        r.mem.put<int8_t>(c + r.async.genFrameState, 4);
        r.task(r.name("finished"), c);
        std::vector<AsyncTask> tasks;
        QVERIFY2(r.reader.readTaskList(r.head, 1, tasks), r.reader.why().c_str());
        QCOMPARE(r.stacks(tasks), (QList<QStringList>{{"[finished]"}}));
    }

    // --async-mode running: the thread's frames from the leaf up to the running task's
    // own coroutine frame, not the event loop below it; a task frame that is not on the
    // thread's chain (it was suspended meanwhile) is a torn read.
    void runningTaskStopsAtItsFrame() {
        Rig r;
        const uint64_t c = r.coro("task_coro");
        const uint64_t taskFrame = c + r.async.genIframe;
        const uint64_t loop = r.py.alloc(r.layout.frSize);
        r.py.modernFrame(loop, r.py.code("run_forever", 5), 0, 0, true);
        r.mem.put<uint64_t>(taskFrame + r.layout.frPrevious, loop);
        const uint64_t helper = r.py.alloc(r.layout.frSize);
        r.py.modernFrame(helper, r.py.code("helper", 20), taskFrame, 0);
        std::vector<uint8_t> tstate(r.layout.tsSize);
        const uint64_t cframe = r.py.alloc(64);
        r.mem.put<uint64_t>(cframe + r.layout.cfCurrentFrame, helper);
        std::memcpy(tstate.data() + r.layout.tsCframe, &cframe, 8);
        FrameWalker::Prefetch ahead;
        std::vector<FrameId> out;
        r.walker.setStopFrame(taskFrame);
        QVERIFY2(r.walker.walk(tstate, out, ahead), r.walker.why().c_str());
        QCOMPARE(r.frames(out), (QStringList{"helper", "task_coro"}));
        r.mem.put<uint64_t>(helper + r.layout.frPrevious, loop);
        out.clear();
        QVERIFY(!r.walker.walk(tstate, out, ahead));
        QCOMPARE(r.walker.why(),
                 std::string("the running task's frame is not on its thread's stack (torn read)"));
        r.walker.setStopFrame(0);
    }
};

QTEST_GUILESS_MAIN(TestTaskGraph)
#include "test_task_graph.moc"
