// --native-stacks' parts without a Python target: how a Python stack and a native stack
// merge (and when they must not), how symbols are named and classified, and the libdwfl
// unwinder on a real child process stopped in a known chain of functions, then on stack
// memory that lies.
#include "core/native/native_symbols.h"
#include "core/native/native_unwinder.h"
#include "core/native/perf_thread_events.h"
#include "core/native/stack_merge.h"
#include "core/remote/remote_memory.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTest>
#include <QThread>

#include <atomic>
#include <thread>

#include <csignal>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::native;

// A chain the child sits in: outer -> middle -> inner -> pause(). Not inlined, and
// visible in the symbol table under these names. Built without frame pointers even in
// the -O0 sanitizer builds, as distributions build libraries: an unwind from /proc's SP
// and PC alone (a thread blocked since attach) then reaches outer, where a frame-pointer
// frame would need rbp, which /proc does not give.
#if defined(__GNUC__) && !defined(__clang__)
#define GILSCOPE_NO_FRAME_POINTER __attribute__((noinline, optimize("omit-frame-pointer")))
#else
#define GILSCOPE_NO_FRAME_POINTER __attribute__((noinline))
#endif
extern "C" {
GILSCOPE_NO_FRAME_POINTER void gilscope_test_inner() {
    for (;;)
        pause();
}
GILSCOPE_NO_FRAME_POINTER void gilscope_test_middle() {
    gilscope_test_inner();
    asm volatile("" ::: "memory"); // not a tail call
}
GILSCOPE_NO_FRAME_POINTER void gilscope_test_outer() {
    gilscope_test_middle();
    asm volatile("" ::: "memory");
}
}

namespace {

// Memory whose every word points back into itself: a stack of lies.
class LoopingMemory final : public remote::ProcessMemory {
public:
    size_t readPartial(uint64_t addr, void* dst, size_t len) override {
        auto* out = static_cast<uint8_t*>(dst);
        for (size_t i = 0; i < len; ++i)
            out[i] = uint8_t((addr + i) * 131);
        return len;
    }
    size_t readMany(std::span<const iovec>, std::span<const iovec>) override { return 0; }
};

struct Child {
    pid_t pid = -1;
    ~Child() {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    }
};

} // namespace

class TestNativeUnits : public QObject {
    Q_OBJECT

    FrameRegistry reg_;
    FrameId frame(const char* name) {
        return reg_.internFrame(FrameInfo{reg_.internString("x.py"), reg_.internString(name)});
    }
    // A native frame of "lib.so" (python3.15 for unnamed ones, as NativeSymbols names them).
    // A named frame is in lib.so unless `file` says; an unnamed one in python3.15.
    NativeStackFrame nat(const char* name, uint64_t sp = 0, bool named = true,
                         const char* file = nullptr) {
        FrameInfo fi{reg_.internString(file    ? file
                                       : named ? "lib.so"
                                               : "python3.15"),
                     reg_.internString(name)};
        return {
            {reg_.internFrame(fi), named ? NativeSymbols::classify(name) : NativeKind::Code, named},
            sp};
    }
    QStringList names(const std::vector<FrameId>& ids) {
        QStringList out;
        for (FrameId id : ids)
            out << QString::fromStdString(reg_.string(reg_.frame(id).funcname));
        return out;
    }

    // Leaf-first function names of pid's stack unwound from regs (live memory).
    QStringList unwoundNames(int pid, const Registers& regs) {
        auto unwinder = NativeUnwinder::open(pid);
        if (!unwinder) return {};
        remote::RemoteMemory memory(pid);
        std::vector<NativeFrame> frames;
        (*unwinder)->unwind(pid, regs, memory, frames);
        NativeSymbols symbols(reg_);
        QStringList out;
        for (const NativeFrame& f : frames)
            out << names({symbols.lookup(**unwinder, f.lookupPc()).frame});
        return out;
    }

private slots:
    // 3.11: runs end at entries without addresses; eval loops are paired by name.
    void mergeInterleavesRunsAtNamedEvalLoops() {
        const std::vector<FrameId> python = {frame("py_cmp"), frame("sort_forever"),
                                             frame("<module>")};
        const std::vector<EvalEntry> entries = {{1, 0}, {3, 0}};
        const std::vector<NativeStackFrame> native = {nat("_PyEval_EvalFrameDefault"),
                                                      nat("_PyFunction_Vectorcall"),
                                                      nat("closure_fcn"),
                                                      nat("qsort_r"),
                                                      nat("ffi_call"),
                                                      nat("_PyObject_MakeTpCall"),
                                                      nat("_PyEval_EvalFrameDefault"),
                                                      nat("PyEval_EvalCode"),
                                                      nat("Py_BytesMain"),
                                                      nat("main"),
                                                      nat("_start")};
        MergeInput in{python, entries, 0, native, {}};
        std::vector<FrameId> out;
        std::string why;
        QVERIFY2(mergeStacks(in, MergeOptions{}, reg_, out, why), why.c_str());
        QCOMPARE(names(out), QStringList({"py_cmp", "closure_fcn", "qsort_r", "ffi_call",
                                          "sort_forever", "<module>"}));
        MergeOptions all;
        all.all = true; // everything, each eval loop after (rootward of) its run
        QVERIFY(mergeStacks(in, all, reg_, out, why));
        QCOMPARE(names(out),
                 QStringList({"py_cmp", "_PyEval_EvalFrameDefault", "_PyFunction_Vectorcall",
                              "closure_fcn", "qsort_r", "ffi_call", "_PyObject_MakeTpCall",
                              "sort_forever", "<module>", "_PyEval_EvalFrameDefault",
                              "PyEval_EvalCode", "Py_BytesMain", "main", "_start"}));
    }

    // 3.12+: each run's entry frame lies in its eval call's stack frame, found by stack
    // pointers alone: a stripped interpreter (no names) pairs as well, and its unnamed
    // code is folded as plumbing.
    void mergePairsRunsByEntryAddress() {
        const std::vector<FrameId> python = {frame("py_cmp"), frame("sort_forever"),
                                             frame("<module>")};
        // Native frames, leaf first, with growing stack pointers.
        const std::vector<NativeStackFrame> native = {nat("python3.15+0x355aa3", 0x1000, false),
                                                      nat("closure_fcn", 0x1100),
                                                      nat("qsort_r", 0x1200),
                                                      nat("python3.15+0x4c083", 0x1300, false),
                                                      nat("Py_RunMain", 0x1400, true, "python3.15"),
                                                      nat("_start", 0x1500)};
        const std::vector<EvalEntry> entries = {{1, 0x1080}, {3, 0x1340}};
        std::vector<FrameId> out;
        std::string why;
        QVERIFY2(mergeStacks({python, entries, 0, native, {}}, MergeOptions{}, reg_, out, why),
                 why.c_str());
        QCOMPARE(names(out),
                 QStringList({"py_cmp", "closure_fcn", "qsort_r", "sort_forever", "<module>"}));
        // An entry frame outside every native frame: an error, not a guess.
        const std::vector<EvalEntry> lost = {{1, 0x1080}, {3, 0x9000}};
        QVERIFY(!mergeStacks({python, lost, 0, native, {}}, MergeOptions{}, reg_, out, why));
        QVERIFY2(why.find("lies in no eval loop") != std::string::npos, why.c_str());
        // An entry frame in a frame that is no eval loop (the Python stack was read where
        // the sample had C frames of another library): an error, not a mix.
        const std::vector<EvalEntry> inQsort = {{1, 0x1280}, {3, 0x1340}};
        QVERIFY(!mergeStacks({python, inQsort, 0, native, {}}, MergeOptions{}, reg_, out, why));
        QVERIFY2(why.find("lies in no eval loop") != std::string::npos, why.c_str());
        // Entries that point past the frames (torn): refused.
        const std::vector<EvalEntry> torn = {{5, 0x1080}};
        QVERIFY(!mergeStacks({python, torn, 0, native, {}}, MergeOptions{}, reg_, out, why));
        // Frames left below the last entry: refused.
        const std::vector<EvalEntry> short_ = {{1, 0x1080}};
        QVERIFY(!mergeStacks({python, short_, 0, native, {}}, MergeOptions{}, reg_, out, why));
    }

    // 3.12+ without pausing: the callback came back at another C depth between the sample
    // and the read, so the innermost run's entry frame lies in no sampled eval loop. It
    // pairs with the one eval loop leafward of the other runs when that loop's own entry
    // frame, from the sample's memory, was entered from the same Python frame.
    void mergePairsTheInnermostRunByItsCaller() {
        const std::vector<FrameId> python = {frame("py_cmp"), frame("sort_forever"),
                                             frame("<module>")};
        const std::vector<NativeStackFrame> native = {nat("_PyEval_EvalFrameDefault", 0x1000),
                                                      nat("closure_fcn", 0x1100),
                                                      nat("msort_with_tmp", 0x1200),
                                                      nat("qsort_r", 0x1300),
                                                      nat("_PyEval_EvalFrameDefault", 0x1400),
                                                      nat("Py_RunMain", 0x1500),
                                                      nat("_start", 0x1600)};
        constexpr uint64_t kSortForever = 0x7f0000a0; // the Python frame that called qsort
        // Read deeper than the sample (a deeper msort call), entered from sort_forever.
        const std::vector<EvalEntry> entries = {{1, 0x0f80, kSortForever, 8}, {3, 0x1480, 0, 8}};
        const std::vector<SampledEntry> sameCaller = {{0, kSortForever}, {4, 0}};
        std::vector<FrameId> out;
        std::string why;
        MergeHow how = MergeHow::Exact;
        const auto later = [&](std::span<const EvalEntry> e, std::span<const NativeStackFrame> n,
                               std::span<const SampledEntry> sampled) {
            MergeInput in{python, e, 0, n, sampled};
            in.readAfterSample = true;
            return mergeStacks(in, MergeOptions{}, reg_, out, why, &how);
        };
        QVERIFY2(later(entries, native, sameCaller), why.c_str());
        QCOMPARE(how, MergeHow::ByCaller);
        QCOMPARE(names(out), QStringList({"py_cmp", "closure_fcn", "msort_with_tmp", "qsort_r",
                                          "sort_forever", "<module>"}));
        // Read at the sample's instant (--blocking): no exception.
        QVERIFY(!mergeStacks({python, entries, 0, native, sameCaller}, MergeOptions{}, reg_, out,
                             why, &how));
        // Without the sample's entry frames, or entered from another frame: an error.
        QVERIFY(!later(entries, native, {}));
        const std::vector<SampledEntry> otherCaller = {{0, kSortForever + 0x40}};
        QVERIFY(!later(entries, native, otherCaller));
        // A sample with two eval loops leafward of the outer run (a callback within a
        // callback) has a run the read does not: an error.
        std::vector<NativeStackFrame> twoInner = native;
        twoInner[2] = nat("_PyEval_EvalFrameDefault", 0x1200);
        QVERIFY(!later(entries, twoInner, sameCaller));
        // An outer run that does not pair by address: an error, whatever the caller.
        const std::vector<EvalEntry> outerLost = {{1, 0x0f80, kSortForever, 8}, {3, 0x9000, 0, 8}};
        QVERIFY(!later(outerLost, native, sameCaller));
        // A stack that pairs by address does so without the exception.
        const std::vector<EvalEntry> exact = {{1, 0x1080, kSortForever, 8}, {3, 0x1480, 0, 8}};
        QVERIFY(later(exact, native, sameCaller));
        QCOMPARE(how, MergeHow::Exact);
    }

    // 3.12+ without pausing: the sample caught the thread in qsort between two callbacks,
    // and the read caught it in the next one. The sample has no eval loop leafward of
    // sort_forever's: at its instant the thread ran sort_forever's run only, into qsort.
    void mergeLeavesOutACallbackBegunAfterTheSample() {
        const std::vector<FrameId> python = {frame("py_cmp"), frame("sort_forever"),
                                             frame("<module>")};
        const std::vector<NativeStackFrame> native = {
            nat("msort_with_tmp", 0x1200), nat("qsort_r", 0x1300),
            nat("_PyEval_EvalFrameDefault", 0x1400), nat("Py_RunMain", 0x1500),
            nat("_start", 0x1600)};
        const std::vector<EvalEntry> entries = {{1, 0x1000, 0x7f0000a0, 8}, {3, 0x1480, 0, 8}};
        std::vector<FrameId> out;
        std::string why;
        MergeHow how = MergeHow::Exact;
        const auto later = [&](std::span<const EvalEntry> e, std::span<const NativeStackFrame> n) {
            MergeInput in{python, e, 0, n, {}};
            in.readAfterSample = true;
            return mergeStacks(in, MergeOptions{}, reg_, out, why, &how);
        };
        QVERIFY2(later(entries, native), why.c_str());
        QCOMPARE(how, MergeHow::BeforeInnermost);
        QCOMPARE(names(out),
                 QStringList({"msort_with_tmp", "qsort_r", "sort_forever", "<module>"}));
        // Read at the sample's instant (--blocking), the same stacks are an error.
        QVERIFY(
            !mergeStacks({python, entries, 0, native, {}}, MergeOptions{}, reg_, out, why, &how));
        // The read found the callback where the sample had other C frames (it began after
        // the sample, at a shallower depth): left out as well.
        QVERIFY(later(std::vector<EvalEntry>{{1, 0x1280, 0, 8}, {3, 0x1480, 0, 8}}, native));
        QCOMPARE(names(out),
                 QStringList({"msort_with_tmp", "qsort_r", "sort_forever", "<module>"}));
        // An innermost entry frame rootward of the outer loop's frame is no callback of it.
        QVERIFY(!later(std::vector<EvalEntry>{{1, 0x1480, 0, 8}, {3, 0x1480, 0, 8}}, native));
        // Implausibly far beyond the leaf: no C local of this stack, an error.
        QVERIFY(!later(std::vector<EvalEntry>{{1, 0x10, 0, 8}, {3, 0x1200280, 0, 8}},
                       std::vector<NativeStackFrame>{
                           nat("msort_with_tmp", 0x1200000), nat("qsort_r", 0x1200100),
                           nat("_PyEval_EvalFrameDefault", 0x1200200), nat("_start", 0x1200300)}));
        // Another eval loop leafward of the outer run (another callback, by name or as the
        // stripped interpreter's unnamed code): the sample had a run the read lacks.
        std::vector<NativeStackFrame> inner = native;
        inner[0] = nat("_PyEval_EvalFrameDefault", 0x1200);
        QVERIFY(!later(entries, inner));
        inner[0] = nat("python3.15+0x355aa3", 0x1200, false, "python3.15");
        MergeOptions stripped;
        stripped.interpreter = reg_.frame(inner[0].symbol.frame).filename;
        MergeInput in{python, entries, 0, inner, {}};
        in.readAfterSample = true;
        QVERIFY(!mergeStacks(in, stripped, reg_, out, why, &how));
        // The outer run must pair by address, and a lone run is never left out.
        QVERIFY(!later(std::vector<EvalEntry>{{1, 0x1000, 0, 8}, {3, 0x9000, 0, 8}}, native));
        const std::vector<FrameId> lone = {frame("py_cmp")};
        const std::vector<EvalEntry> loneEntry = {{1, 0x1000, 0, 8}};
        MergeInput one{lone, loneEntry, 0, native, {}};
        one.readAfterSample = true;
        QVERIFY(!mergeStacks(one, MergeOptions{}, reg_, out, why, &how));
    }

    // 3.12+: a read that caught the callback's eval loop leaving (py_cmp returned, the
    // loop not yet) has a run with no Python frame. At the sample's instant, earlier, the
    // loop may still have run py_cmp: without pausing that is not paired (before, it
    // showed the loop's C frames under no Python, 18% of qsort samples on 3.12). Read at the
    // sample's instant (--blocking), it is the truth.
    void mergeRefusesAnEmptyRunReadAfterTheSample() {
        const std::vector<FrameId> python = {frame("sort_forever"), frame("<module>")};
        const std::vector<NativeStackFrame> native = {nat("_PyLong_Add", 0x0f00),
                                                      nat("_PyEval_EvalFrameDefault", 0x1000),
                                                      nat("_CallPythonObject", 0x1100),
                                                      nat("qsort_r", 0x1300),
                                                      nat("_PyEval_EvalFrameDefault", 0x1400),
                                                      nat("_start", 0x1600)};
        const std::vector<EvalEntry> entries = {{0, 0x1080, 0, 8}, {2, 0x1480, 0, 8}};
        std::vector<FrameId> out;
        std::string why;
        MergeInput in{python, entries, 0, native, {}};
        QVERIFY2(mergeStacks(in, MergeOptions{}, reg_, out, why), why.c_str());
        QCOMPARE(names(out), QStringList({"_PyLong_Add", "_CallPythonObject", "qsort_r",
                                          "sort_forever", "<module>"}));
        in.readAfterSample = true;
        QVERIFY(!mergeStacks(in, MergeOptions{}, reg_, out, why));
        QVERIFY2(why.find("empty") != std::string::npos, why.c_str());
    }

    void mergeOnePythonFramePerEvalLoop() { // 3.8-3.10, with a <GC> frame at the leaf
        const std::vector<FrameId> python = {frame("<GC>"), frame("c"), frame("b"), frame("a")};
        const std::vector<NativeStackFrame> native = {
            nat("_PyEval_EvalFrameDefault"),      nat("function_code_fastcall"),
            nat("_PyEval_EvalFrameDefault"),      nat("helper_in_c"),
            nat("_PyEval_EvalFrameDefault.cold"), nat("main")};
        MergeOptions o;
        o.runs = PythonRuns::OnePerFrame;
        std::vector<FrameId> out;
        std::string why;
        QVERIFY2(mergeStacks({python, {}, 1, native, {}}, o, reg_, out, why), why.c_str());
        QCOMPARE(names(out), QStringList({"<GC>", "c", "b", "helper_in_c", "a"}));
    }

    void mergeRefusesStacksThatDoNotPair() {
        const std::vector<FrameId> python = {frame("f"), frame("g")};
        const std::vector<EvalEntry> entries = {{1, 0}, {2, 0}};
        const std::vector<NativeStackFrame> oneLoop = {nat("_PyEval_EvalFrameDefault"),
                                                       nat("main")};
        std::vector<FrameId> out;
        std::string why;
        QVERIFY(!mergeStacks({python, entries, 0, oneLoop, {}}, MergeOptions{}, reg_, out, why));
        QVERIFY2(why.find("1 eval loops for 2 runs") != std::string::npos, why.c_str());
        // No eval loop but Python frames: never a guess either.
        QVERIFY(!mergeStacks({python, entries, 0, {}, {}}, MergeOptions{}, reg_, out, why));
    }

    void mergeKeepsAThreadWithoutPython() {
        const std::vector<NativeStackFrame> native = {nat("epoll_wait"), nat("event_loop"),
                                                      nat("start_thread"), nat("clone3")};
        std::vector<FrameId> out;
        std::string why;
        QVERIFY(mergeStacks({{}, {}, 0, native, {}}, MergeOptions{}, reg_, out, why));
        QCOMPARE(names(out), QStringList({"epoll_wait", "event_loop", "start_thread", "clone3"}));
    }

    void symbolsAreClassifiedAndDemangled() {
        QCOMPARE(NativeSymbols::classify("_PyEval_EvalFrameDefault"), NativeKind::Eval);
        QCOMPARE(NativeSymbols::classify("_PyEval_EvalFrameDefault.cold"), NativeKind::Eval);
        QCOMPARE(NativeSymbols::classify("_PyObject_Vectorcall"), NativeKind::Plumbing);
        QCOMPARE(NativeSymbols::classify("method_vectorcall_O.isra.0"), NativeKind::Plumbing);
        QCOMPARE(NativeSymbols::classify("qsort_r"), NativeKind::Code);
        QCOMPARE(NativeSymbols::classify("list_sort_impl"), NativeKind::Code);
        QCOMPARE(NativeSymbols::demangle("_ZN4demo6SorterIiE5visitEv"),
                 std::string("demo::Sorter<int>::visit()"));
        QCOMPARE(NativeSymbols::demangle("qsort"), std::string("qsort"));
        QCOMPARE(NativeSymbols::demangle("_Z"), std::string("_Z")); // not a valid name
        QCOMPARE(NativeSymbols::symbolName("clock_nanosleep@GLIBC_2.2.5"),
                 std::string("clock_nanosleep"));
        QCOMPARE(NativeSymbols::symbolName("clock_gettime@@GLIBC_2.17"),
                 std::string("clock_gettime"));
        QCOMPARE(NativeSymbols::symbolName("_ZN4demo3runEv@@DEMO_1"), std::string("demo::run()"));
        QCOMPARE(NativeSymbols::symbolName("@odd"), std::string("@odd"));
    }

    // The unwinder and the symbols on a real process: a child stopped in pause() under
    // outer -> middle -> inner reads, leaf first, inner, middle, outer.
    void unwindsARealChildInOrder() {
        Child child;
        child.pid = ::fork();
        QVERIFY(child.pid >= 0);
        if (child.pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            gilscope_test_outer();
            _exit(0);
        }
        QVERIFY(::ptrace(PTRACE_SEIZE, child.pid, nullptr, nullptr) == 0);
        // Wait until it is inside the chain (pause), then stop it there.
        bool inPause = false;
        for (int i = 0; i < 500 && !inPause; ++i) {
            QThread::msleep(10);
            QFile wchan(QString("/proc/%1/syscall").arg(child.pid));
            if (wchan.open(QIODevice::ReadOnly))
                inPause = wchan.readAll().startsWith(QByteArray::number(SYS_pause) + " ");
        }
        QVERIFY(inPause);
        // Blocked in pause(), without stopping it: /proc's stack pointer and pc alone
        // unwind the same chain (what a thread blocked since the recording began gets).
        QStringList fromProc;
        {
            QFile file(QString("/proc/%1/syscall").arg(child.pid));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const auto regs = Registers::fromSyscallFile(file.readAll().toStdString());
            QVERIFY(regs.has_value());
            fromProc = unwoundNames(child.pid, *regs);
        }
        QVERIFY(::ptrace(PTRACE_INTERRUPT, child.pid, nullptr, nullptr) == 0);
        int status = 0;
        QVERIFY(::waitpid(child.pid, &status, __WALL) == child.pid);
        user_regs_struct r{};
        QVERIFY(::ptrace(PTRACE_GETREGS, child.pid, nullptr, &r) == 0);
        const Registers regs = Registers::fromPtrace(r);
        auto unwinder = NativeUnwinder::open(child.pid);
        QVERIFY2(unwinder, unwinder ? "" : unwinder.error().message.c_str());
        remote::RemoteMemory memory(child.pid);
        std::vector<NativeFrame> frames;
        QVERIFY2((*unwinder)->unwind(child.pid, regs, memory, frames), (*unwinder)->why().c_str());
        NativeSymbols symbols(reg_);
        QStringList got;
        for (const NativeFrame& f : frames)
            got << names({symbols.lookup(**unwinder, f.lookupPc()).frame});
        const qsizetype inner = got.indexOf("gilscope_test_inner");
        QVERIFY2(inner >= 0, qPrintable(got.join(" <- ")));
        QCOMPARE(got.mid(inner, 3), QStringList({"gilscope_test_inner", "gilscope_test_middle",
                                                 "gilscope_test_outer"}));
        // Frames are leaf first with growing stack pointers.
        for (size_t i = 1; i < frames.size(); ++i)
            if (frames[i].sp) QVERIFY(frames[i].sp >= frames[i - 1].sp);
        // A native frame, whose file is its library's path as the target sees it.
        const FrameInfo& leaf =
            reg_.frame(symbols.lookup(**unwinder, frames[size_t(inner)].lookupPc()).frame);
        QVERIFY(leaf.native);
        QVERIFY(reg_.string(leaf.filename).starts_with('/'));
        // Again, from the same registers: the second unwind notes the registers of frames
        // the first passed by, the third resumes from the second at once (the stopped
        // child's stack did not change), frame for frame the same.
        for (int i = 0; i < 2; ++i) {
            std::vector<NativeFrame> again;
            QVERIFY((*unwinder)->unwind(child.pid, regs, memory, again));
            QCOMPARE(again, frames);
        }
        QCOMPARE((*unwinder)->framesReused(), uint64_t(frames.size()));
        const qsizetype procInner = fromProc.indexOf("gilscope_test_inner");
        QVERIFY2(procInner >= 0, qPrintable(fromProc.join(" <- ")));
        QCOMPARE(fromProc.mid(procInner, 3), got.mid(inner, 3));
    }

    // The per-range cache names every pc as libdwfl's symbol scan does: pcs through libc's
    // code in ascending order (a symbol's range is cached at its first pc, so a symbol
    // nested in another would be misnamed), each against a lookup with empty caches.
    void symbolRangesNameAsTheSymbolTableDoes() {
        auto unwinder = NativeUnwinder::open(int(::getpid()));
        QVERIFY2(unwinder, unwinder ? "" : unwinder.error().message.c_str());
        QFile maps("/proc/self/maps");
        QVERIFY(maps.open(QIODevice::ReadOnly));
        uint64_t lo = 0, hi = 0;
        for (const QByteArray& line : maps.readAll().split('\n'))
            if (line.contains(" r-xp ") && line.contains("/libc.so.6")) {
                const QList<QByteArray> range = line.split(' ').first().split('-');
                lo = range[0].toULongLong(nullptr, 16);
                hi = range[1].toULongLong(nullptr, 16);
            }
        QVERIFY2(hi > lo, "libc's code is not mapped");
        NativeSymbols cached(reg_);
        int named = 0, checked = 0;
        for (uint64_t pc = lo; pc < hi; pc += 211, ++checked) {
            const NativeSymbol got = cached.lookup(**unwinder, pc);
            const NativeSymbol want = NativeSymbols(reg_).lookup(**unwinder, pc);
            if (got.frame != want.frame)
                QFAIL(qPrintable(
                    QString("0x%1: %2, not %3")
                        .arg(pc, 0, 16)
                        .arg(names({got.frame}).join(""), names({want.frame}).join(""))));
            named += want.named;
        }
        QVERIFY2(named > checked / 4,
                 qPrintable(QString("%1 of %2 named").arg(named).arg(checked)));
    }

    void registersFromTheSyscallFile() {
        QVERIFY(!Registers::fromSyscallFile("running\n"));
        QVERIFY(!Registers::fromSyscallFile(""));
        QVERIFY(!Registers::fromSyscallFile("-1 0x7ffd zz\n"));
        QVERIFY(!Registers::fromSyscallFile("34 0x0 0x0\n")); // neither shape
        const auto blocked = Registers::fromSyscallFile("-1 0x7ffd1000 0x7f0012345678\n");
        QVERIFY(blocked);
        QCOMPARE(blocked->regs[Registers::kSp], uint64_t{0x7ffd1000});
        QCOMPARE(blocked->regs[Registers::kPc], uint64_t{0x7f0012345678});
        QCOMPARE(blocked->known, (1u << Registers::kSp) | (1u << Registers::kPc));
        const auto inCall = Registers::fromSyscallFile(
            "202 0x7f00aa 0x80 0x0 0x0 0x0 0x0 0x7ffe2000 0x7f0099887766\n");
        QVERIFY(inCall);
        QCOMPARE(inCall->regs[Registers::kSp], uint64_t{0x7ffe2000});
        QCOMPARE(inCall->regs[Registers::kPc], uint64_t{0x7f0099887766});
    }

    // The kernel samples a thread as it stops running, and its switch records say whether
    // it has run since: a thread blocked in read() is "stopped since its sample" (its state
    // is still the sample's, so a Python read pairs exactly), and once it runs it is not.
    // On this test's own thread, with real perf events; needs kernel events allowed.
    void perfSaysWhetherAThreadStoppedSinceItsSample() {
        auto events = PerfThreadEvents::open(int(::getpid()), 1'000'000);
        if (!events) QSKIP(events.error().message.c_str());
        if (!(*events)->switchSamples())
            QSKIP("the kernel records no context switches for this user (perf_event_paranoid)");
        int toThread[2], fromThread[2];
        QVERIFY(::pipe(toThread) == 0 && ::pipe(fromThread) == 0);
        std::atomic<int> tid{0};
        std::atomic<bool> stop{false};
        std::atomic<uint64_t> spins{0};
        // What the thread found when it looked at its own events (command 'l').
        std::atomic<int> sawItself{-1}; // -1: no sample, 0: running, 1: stopped
        std::thread other([&] {
            tid = int(::syscall(SYS_gettid));
            char c = 0;
            while (::read(toThread[0], &c, 1) == 1) { // blocks here between commands
                if (c == 's')                         // spin until told to stop
                    while (!stop.load(std::memory_order_relaxed))
                        spins.fetch_add(1, std::memory_order_relaxed);
                // A running thread looking at its own buffer: whatever preempted it, its
                // switch back in is written before it runs again, so it is never stopped.
                // The main thread waits on the pipe meanwhile: one user of `events` at a time.
                if (c == 'l') {
                    const PerfSample* self = (*events)->newest(tid);
                    sawItself = self ? int(self->stoppedSince) : -1;
                }
                stop = false;
                if (::write(fromThread[1], &c, 1) != 1) return;
            }
        });
        struct Join { // on every way out, QVERIFY's too
            std::thread& t;
            int *to, *from;
            std::atomic<bool>& stop;
            ~Join() {
                stop = true;
                ::close(to[1]); // its read() returns 0: it ends
                t.join();
                ::close(to[0]), ::close(from[0]), ::close(from[1]);
            }
        } join{other, toThread, fromThread, stop};
        while (!tid)
            ::usleep(100);
        QVERIFY2((*events)->track(tid), (*events)->why().c_str());
        const auto command = [&](char c) { return ::write(toThread[1], &c, 1) == 1; };
        const auto answered = [&] {
            char c = 0;
            return ::read(fromThread[0], &c, 1) == 1;
        };
        const auto blockedInRead = [&] {
            QFile stat(QString("/proc/self/task/%1/stat").arg(int(tid)));
            if (!stat.open(QIODevice::ReadOnly)) return false;
            const QByteArray text = stat.readAll();
            return text.mid(text.lastIndexOf(')') + 2, 1) == "S";
        };
        QElapsedTimer clock;
        clock.start();
        const PerfSample* s = nullptr;
        // Spin a while, then block: the switch away from it is sampled.
        for (int round = 0; round < 2; ++round) {
            QVERIFY(command('s'));
            const uint64_t before = spins.load();
            while (spins.load() < before + 1'000'000 && clock.elapsed() < 30000) {
                ::usleep(100);
                (*events)->newest(tid); // drained as the sampler does, so nothing is lost
            }
            stop = true;
            QVERIFY(answered());
            while (!blockedInRead() && clock.elapsed() < 30000)
                ::usleep(100);
            s = (*events)->newest(tid);
            while ((!s || !s->stoppedSince) && clock.elapsed() < 30000) {
                ::usleep(1000);
                s = (*events)->newest(tid);
            }
            QVERIFY2(s && s->stoppedSince, "a thread blocked in read() was never seen stopped");
            QVERIFY(!s->stack.empty() && s->stackAddr != 0);
            const uint64_t blockedAt = s->timeNs;
            // Woken, it runs: it sees itself not stopped.
            QVERIFY(command('l'));
            QVERIFY(answered());
            QVERIFY2(sawItself == 0, "a running thread saw itself stopped since its sample");
            // Spinning, seen from here: its blocked sample no longer stands for it. It is
            // not stopped, or it was preempted since, at a newer sample. With one core free,
            // each look from here preempts the spinner, so every look finds it preempted.
            QVERIFY(command('s'));
            while (s->stoppedSince && s->timeNs == blockedAt && clock.elapsed() < 30000) {
                ::usleep(1000);
                s = (*events)->newest(tid);
            }
            QVERIFY2(!s->stoppedSince || s->timeNs > blockedAt,
                     "a spinning thread still counted as stopped at its blocked sample");
            stop = true;
            QVERIFY(answered());
        }
    }

    // Stack memory that lies (every word a pointer into more lies) ends in a bounded
    // number of frames, never a hang or a crash.
    void unwindOfLyingMemoryIsBounded() {
        auto unwinder = NativeUnwinder::open(::getpid());
        QVERIFY2(unwinder, unwinder ? "" : unwinder.error().message.c_str());
        LoopingMemory lies;
        Registers regs;
        for (uint64_t seed = 1; seed < 200; ++seed) {
            for (unsigned i = 0; i < Registers::kCount; ++i)
                regs.regs[i] = seed * 0x9e3779b97f4a7c15ull >> i;
            regs.regs[Registers::kPc] =
                reinterpret_cast<uint64_t>(&gilscope_test_middle) + seed % 16;
            std::vector<NativeFrame> frames;
            (*unwinder)->unwind(::getpid(), regs, lies, frames);
            QVERIFY(frames.size() <= NativeUnwinder::kMaxFrames);
        }
    }
};

QTEST_GUILESS_MAIN(TestNativeUnits)
#include "test_native_units.moc"
