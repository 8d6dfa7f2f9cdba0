// PythonRereads over a scripted stack source: what a real target does at random (a
// callback that is gone at the first read and back at a later one) happens here on cue, so
// the pairing, the sharing of a tick's reads between threads and the bounds are checked
// exactly. tests/integration/record/test_native_stacks.cpp runs it on real interpreters.
#include "core/native/python_rereads.h"

#include <QTest>

#include <deque>

using namespace gilscope;
using gilscope::native::PythonRereads;

namespace {

// Each read() hands out the next scripted read: a list of (thread id, first frame); an
// empty one is a torn read. Past the script, the process has ended.
class ScriptedSource final : public StackSource {
public:
    std::deque<std::vector<std::pair<uint64_t, FrameId>>> script;
    size_t readsMade = 0;

    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override {
        ++readsMade;
        if (script.empty()) return ReadOutcome::ProcessEnded;
        const auto next = script.front();
        script.pop_front();
        if (next.empty()) return ReadOutcome::Error;
        if (out.size() < next.size()) out.resize(next.size());
        count = next.size();
        for (size_t i = 0; i < next.size(); ++i) {
            out[i] = ThreadStack{};
            out[i].threadId = next[i].first;
            out[i].frames = {next[i].second};
        }
        return ReadOutcome::Ok;
    }
    FrameRegistry& registry() override { return registry_; }
    int pid() const override { return 1; }
    PythonVersion pythonVersion() const override { return {3, 12, 0}; }

private:
    FrameRegistry registry_;
};

constexpr FrameId kInCallback{7}, kInC{3};

// Pairs when the thread is in the callback, as a sample taken there would.
bool pairsInCallback(ThreadStack& t) {
    return t.frames.front() == kInCallback;
}

ThreadStack stackOf(uint64_t tid, FrameId f) {
    ThreadStack t;
    t.threadId = tid;
    t.frames = {f};
    return t;
}

// A clock that advances `stepNs` on every look.
PythonRereads::Clock steppingClock(uint64_t stepNs) {
    auto now = std::make_shared<uint64_t>(0);
    return [now, stepNs] { return *now += stepNs; };
}

// Thread 10, sampled in the callback and read in C, offered the scripted later reads of
// one tick: whether it paired, its first frame then, and the reads made.
struct Tried {
    bool paired = false;
    FrameId first;
    size_t reads = 0;
};
using Script = std::deque<std::vector<std::pair<uint64_t, FrameId>>>;
Tried tryPairing(Script script, uint64_t budgetNs = 1'000'000, uint64_t stepNs = 1) {
    ScriptedSource source;
    source.script = std::move(script);
    PythonRereads rereads(source, budgetNs, steppingClock(stepNs));
    rereads.startTick();
    ThreadStack t = stackOf(10, kInC);
    const bool paired = rereads.pair(t, pairsInCallback);
    return {paired, t.frames.front(), source.readsMade};
}
Script repeated(std::vector<std::pair<uint64_t, FrameId>> read, size_t times) {
    return Script(times, read);
}

} // namespace

class TestPythonRereads : public QObject {
    Q_OBJECT
private slots:
    void laterReadThatPairsIsTaken() {
        const Tried t = tryPairing({{{10, kInC}}, {{10, kInC}}, {{10, kInCallback}}});
        QVERIFY(t.paired);
        QCOMPARE(t.first, kInCallback);
        QCOMPARE(t.reads, size_t(3));
    }

    void threadsOfATickShareItsReads() {
        ScriptedSource source;
        source.script = {{{10, kInC}, {11, kInCallback}}, {{10, kInCallback}, {11, kInC}}};
        PythonRereads rereads(source, 1'000'000, steppingClock(1));
        rereads.startTick();
        ThreadStack a = stackOf(10, kInC), b = stackOf(11, kInC);
        QVERIFY(rereads.pair(a, pairsInCallback)); // needs both reads
        QVERIFY(rereads.pair(b, pairsInCallback)); // the first one, already made
        QCOMPARE(source.readsMade, size_t(2));
        // A new tick reads anew.
        source.script = {{{10, kInCallback}}};
        rereads.startTick();
        ThreadStack c = stackOf(10, kInC);
        QVERIFY(rereads.pair(c, pairsInCallback));
        QCOMPARE(source.readsMade, size_t(3));
    }

    void neverPairsWithinTheBoundsIsAnError() {
        const Tried t = tryPairing(repeated({{10, kInC}}, PythonRereads::kMaxReads + 4));
        QVERIFY(!t.paired);
        QCOMPARE(t.reads, PythonRereads::kMaxReads);
        QCOMPARE(t.first, kInC); // unchanged
    }

    void theBudgetBoundsTheReads() {
        // Each read takes 30 µs on this clock; 100 µs of budget: four reads start (the
        // fourth while 90 µs are spent).
        const Tried t = tryPairing(repeated({{10, kInC}}, 8), 100'000, 30'000);
        QVERIFY(!t.paired);
        QCOMPARE(t.reads, size_t(4));
    }

    void aThreadGoneOrAnEndedProcessEndsTheTry() {
        // Thread 10 has exited; then the process: the second read finds it ended, no more.
        const Tried t = tryPairing({{{11, kInCallback}}});
        QVERIFY(!t.paired);
        QCOMPARE(t.reads, size_t(2));
    }

    // A thread caught mid-call tears a read (3.12's half set-up entry frame); the read
    // after it may pair. Before, a torn later read ended the try.
    void aTornReadIsPassedOver() {
        const Tried t = tryPairing({{}, {}, {{10, kInCallback}}});
        QVERIFY(t.paired);
        QCOMPARE(t.first, kInCallback);
        QCOMPARE(t.reads, size_t(3));
        // Torn reads count against the bounds like any other.
        const Tried torn = tryPairing(repeated({}, PythonRereads::kMaxReads + 4));
        QVERIFY(!torn.paired);
        QCOMPARE(torn.reads, PythonRereads::kMaxReads);
    }
};

QTEST_GUILESS_MAIN(TestPythonRereads)
#include "test_python_rereads.moc"
