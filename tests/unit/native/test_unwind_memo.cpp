// UnwindMemo on synthetic unwinds over fake memory: a later unwind resumes from the last
// one only where it would provably go on alike (same frame, same registers, every word
// read from there on unchanged, the same thread, the same module list), and carries the
// last one's frames and stop reason exactly.
#include "core/native/unwind_memo.h"
#include "tests/unit/remote/fake_memory.h"

#include <QTest>
#include <memory>

using namespace gilscope;
using namespace gilscope::native;
using gilscope::test::FakeMemory;

namespace {

UnwindMemo::Frame frameAt(uint64_t pc, uint64_t sp, uint64_t rbx = 7) {
    UnwindMemo::Frame f;
    f.frame.pc = pc;
    f.frame.sp = sp;
    f.regs[Registers::kPc] = pc;
    f.regs[Registers::kSp] = sp;
    f.regs[3] = rbx;
    f.known = 1u << Registers::kPc | 1u << Registers::kSp | 1u << 3;
    return f;
}

// When an unwinder reads a frame's word (its return address at sp + 8, as a CFI unwinder
// reads it): after the frame is reached, or before, as libdwfl does for every frame past
// the first (dwfl_frame_pc unwinds one further to tell an activation).
enum class ReadOrder { AfterReached, BeforeReached };

// One unwind of `tid`: frames leaf first, each with its read. Stops at a resume. Returns
// the frames and, through *stop, why it stopped.
std::vector<NativeFrame> unwind(UnwindMemo& memo, FakeMemory& mem, int tid,
                                const std::vector<UnwindMemo::Frame>& frames,
                                std::string* stop = nullptr, const std::string& why = "",
                                ReadOrder order = ReadOrder::AfterReached) {
    std::vector<NativeFrame> out;
    auto readWord = [&](const UnwindMemo::Frame& f) {
        uint64_t v = 0;
        const bool ok = mem.readValue(f.frame.sp + 8, v);
        memo.read(f.frame.sp + 8, ok, v);
    };
    memo.begin(tid);
    for (const auto& f : frames) {
        memo.frameStarts();
        if (order == ReadOrder::BeforeReached) readWord(f);
        if (memo.reached(f, mem, out)) break;
        if (order == ReadOrder::AfterReached) readWord(f);
    }
    const std::string& s = memo.end(why);
    if (stop) *stop = s;
    return out;
}

std::vector<NativeFrame> unwindReadingFirst(UnwindMemo& memo, FakeMemory& mem, int tid,
                                            const std::vector<UnwindMemo::Frame>& frames) {
    return unwind(memo, mem, tid, frames, nullptr, "", ReadOrder::BeforeReached);
}

std::vector<uint64_t> pcs(const std::vector<NativeFrame>& frames) {
    std::vector<uint64_t> out;
    for (const auto& f : frames)
        out.push_back(f.pc);
    return out;
}

} // namespace

class TestUnwindMemo : public QObject {
    Q_OBJECT
    std::unique_ptr<FakeMemory> memory_;
    FakeMemory* mem = nullptr;
    std::vector<UnwindMemo::Frame> stack_; // root part: three frames at 0x1100.. 0x1120

private slots:
    void init() {
        memory_ = std::make_unique<FakeMemory>();
        mem = memory_.get();
        mem->map(0x1000, 0x1000);
        for (uint64_t a = 0x1000; a < 0x2000; a += 8)
            mem->put<uint64_t>(a, a * 3);
        stack_ = {frameAt(0xa0, 0x1100), frameAt(0xb0, 0x1110), frameAt(0xc0, 0x1120)};
    }

    void resumesWhereNothingChanged() {
        UnwindMemo memo;
        auto first = stack_;
        first.insert(first.begin(), frameAt(0x10, 0x10f0)); // a leaf in other code
        std::string stop;
        QCOMPARE(pcs(unwind(memo, *mem, 1, first, &stop, "no CFI for 0xc0")),
                 (std::vector<uint64_t>{0x10, 0xa0, 0xb0, 0xc0}));
        QCOMPARE(memo.framesReused(), uint64_t{0});
        // A new leaf, then the same root part: resumed at its first frame, which the
        // caller never has to unwind past.
        auto second = stack_;
        second.insert(second.begin(), frameAt(0x20, 0x10e0));
        second.resize(2); // what the unwinder would reach before the resume
        QCOMPARE(pcs(unwind(memo, *mem, 1, second, &stop, "")),
                 (std::vector<uint64_t>{0x20, 0xa0, 0xb0, 0xc0}));
        QVERIFY(memo.resumed());
        QCOMPARE(memo.framesReused(), uint64_t{3});
        QCOMPARE(stop, std::string("no CFI for 0xc0")); // where the last one stopped
    }

    void aChangedWordStopsTheResumeThere() {
        UnwindMemo memo;
        unwind(memo, *mem, 1, stack_);
        mem->put<uint64_t>(0x1118, 1); // read past the second frame
        auto again = unwind(memo, *mem, 1, stack_);
        QCOMPARE(pcs(again), (std::vector<uint64_t>{0xa0, 0xb0, 0xc0}));
        // Not from the first frame nor the second (their reads include the changed
        // word); from the third, whose own read did not change.
        QCOMPARE(memo.framesReused(), uint64_t{1});
    }

    // A frame's own read, made before the frame is reached (libdwfl's order), belongs to
    // it: a change there stops a resume at that frame (the fuzzer found this).
    void readsBeforeTheFrameIsReachedAreItsOwn() {
        UnwindMemo memo;
        unwindReadingFirst(memo, *mem, 1, stack_);
        unwindReadingFirst(memo, *mem, 1, stack_);
        QCOMPARE(memo.framesReused(), uint64_t{3});
        unwindReadingFirst(memo, *mem, 1, stack_);
        mem->put<uint64_t>(0x1118, 1); // the second frame's read
        const uint64_t before = memo.framesReused();
        QCOMPARE(pcs(unwindReadingFirst(memo, *mem, 1, stack_)),
                 (std::vector<uint64_t>{0xa0, 0xb0, 0xc0}));
        QCOMPARE(memo.framesReused() - before, uint64_t{1}); // from the third frame only
    }

    void otherRegistersDoNotResume() {
        UnwindMemo memo;
        auto reusedBy = [&](const std::vector<UnwindMemo::Frame>& frames) {
            unwind(memo, *mem, 1, stack_); // the last unwind: the plain stack
            const uint64_t before = memo.framesReused();
            unwind(memo, *mem, 1, frames);
            return memo.framesReused() - before;
        };
        QCOMPARE(reusedBy(stack_), uint64_t{3});
        auto other = stack_;
        for (auto& f : other)
            f.regs[3] = 99; // rbx differs: the CFI may restore from it
        QCOMPARE(reusedBy(other), uint64_t{0});
        auto notKnown = stack_;
        notKnown[0].known &= ~(1u << 3);
        QCOMPARE(reusedBy(notKnown), uint64_t{2}); // from the second frame on
        auto activation = stack_;
        for (auto& f : activation)
            f.frame.activation = true; // its CFI is looked up at pc, not pc - 1
        QCOMPARE(reusedBy(activation), uint64_t{0});
    }

    // The unwinder reads a frame's registers only where the last unwind passed by: a frame
    // kept without them is never resumed from, and one with them is again.
    void framesWithoutRegistersAreNotResumedFrom() {
        UnwindMemo memo;
        auto bare = stack_;
        for (auto& f : bare) {
            QVERIFY(!memo.mayResumeAt(f.frame)); // no last unwind yet
            f.withRegs = false;
            f.known = 0;
            f.regs = {};
        }
        unwind(memo, *mem, 1, bare);
        memo.begin(1);
        QVERIFY(memo.mayResumeAt(stack_[1].frame));
        QVERIFY(!memo.mayResumeAt(frameAt(0xb1, 0x1110).frame)); // other pc
        memo.end("");
        unwind(memo, *mem, 1, bare); // the last unwind was cut short by the begin/end above
        unwind(memo, *mem, 1, stack_);
        QCOMPARE(memo.framesReused(), uint64_t{0}); // its frames had no registers
        unwind(memo, *mem, 1, stack_);
        QCOMPARE(memo.framesReused(), uint64_t{3});
    }

    void aFailedReadMustStillFail() {
        UnwindMemo memo;
        auto edge = stack_;
        edge.push_back(frameAt(0xd0, 0x1ff8)); // reads 0x2000: unmapped
        unwind(memo, *mem, 1, edge);
        mem->map(0x2000, 0x100);
        unwind(memo, *mem, 1, edge); // the word can be read now: no resume across it
        QCOMPARE(memo.framesReused(), uint64_t{0});
        unwind(memo, *mem, 1, edge); // and now it reads the same again
        QCOMPARE(memo.framesReused(), uint64_t{4});
    }

    void onlyTheSameThreadAndModules() {
        UnwindMemo memo;
        unwind(memo, *mem, 1, stack_);
        unwind(memo, *mem, 2, stack_);
        QCOMPARE(memo.framesReused(), uint64_t{0});
        memo.clear();
        unwind(memo, *mem, 1, stack_);
        QCOMPARE(memo.framesReused(), uint64_t{0});
        unwind(memo, *mem, 1, stack_);
        QCOMPARE(memo.framesReused(), uint64_t{3});
    }

    void aResumeNeverPassesTheFrameBound() {
        UnwindMemo memo;
        std::vector<UnwindMemo::Frame> deep;
        for (uint64_t i = 0; i < NativeUnwinder::kMaxFrames; ++i)
            deep.push_back(frameAt(0x100 + i, 0x1000 + 8 * i));
        unwind(memo, *mem, 1, deep);
        // The same frames behind 10 new leaf frames at lower addresses.
        std::vector<UnwindMemo::Frame> deeper;
        for (uint64_t i = 0; i < 10; ++i)
            deeper.push_back(frameAt(0x50 + i, 0xf00 + 8 * i));
        mem->map(0xf00, 0x100);
        deeper.insert(deeper.end(), deep.begin(), deep.end());
        QCOMPARE(unwind(memo, *mem, 1, deeper).size(), NativeUnwinder::kMaxFrames);
    }
};

QTEST_GUILESS_MAIN(TestUnwindMemo)
#include "test_unwind_memo.moc"
