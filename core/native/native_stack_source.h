#pragma once

#include "core/native/native_symbols.h"
#include "core/native/native_unwinder.h"
#include "core/native/perf_thread_events.h"
#include "core/native/python_rereads.h"
#include "core/native/stack_merge.h"
#include "core/remote/page_cache.h"
#include "core/remote/remote_memory.h"
#include "core/sample/stack_source.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::native {

// Turns a thread's Python stack (with its eval-loop entries) and its registers and stack
// memory into one merged stack: unwinds, names, merges. Shared by both ways of getting
// the registers.
class NativeStackMerger {
public:
    // runtimeAddress: _PyRuntime's, which names the interpreter's module (0: not known).
    NativeStackMerger(FrameRegistry& registry, std::unique_ptr<NativeUnwinder> unwinder,
                      int pythonMinor, bool all, uint64_t runtimeAddress = 0);
    // Replaces t.frames with the merged stack, of one instant (the registers were taken
    // where the Python stack was read); false (t unchanged) with why.
    bool merge(ThreadStack& t, const Registers& regs, remote::ProcessMemory& stack,
               std::string& why) {
        return unwind(t.threadId, regs, stack, why) && pair(t, why);
    }
    // The two halves of merge: unwind and name thread `tid`'s native stack, then pair it
    // with a Python stack of that thread (again with another read, if need be).
    // readAfterSample: that stack was read after the native sample, and the thread may have
    // run in between (mergeStacks' exceptions apply).
    bool unwind(uint64_t tid, const Registers& regs, remote::ProcessMemory& stack,
                std::string& why);
    bool pair(ThreadStack& t, std::string& why, bool readAfterSample = false);
    // Stacks paired by mergeStacks' exceptions: the innermost run by its calling frame,
    // or left out as begun after the sample.
    uint64_t pairedByCaller() const { return pairedByCaller_; }
    uint64_t pairedBeforeInnermost() const { return pairedBeforeInnermost_; }

private:
    // Where an eval loop keeps its entry frame: `offset` bytes below the loop's CFA. Fixed
    // by the loop's frame layout (a few values if it realigns its stack), so it is learned
    // from stacks that paired by address, and trusted once seen twice.
    struct EntryPlace {
        uint64_t offset = 0;
        uint32_t seen = 0;
    };
    static constexpr size_t kMaxEntryPlaces = 4;
    static constexpr uint32_t kLearnPairs = 256; // then the places are known
    void learnEntryPlaces(const ThreadStack& t);
    // The entry frames the unwound stack's own memory holds, at the learned places.
    void readSampledEntries(remote::ProcessMemory& stack);

    FrameRegistry& registry_;
    std::unique_ptr<NativeUnwinder> unwinder_;
    NativeSymbols symbols_;
    MergeOptions options_;
    StringId synthetic_;
    std::vector<NativeFrame> frames_;
    std::vector<NativeStackFrame> named_;
    std::vector<FrameId> merged_;
    std::vector<SampledEntry> sampled_;
    std::vector<EntryPlace> entryPlaces_;
    uint32_t learnedPairs_ = 0;
    uint32_t previousOffset_ = 0; // EvalEntry::previousOffset, once a read gave one
    uint64_t runtimeAddress_ = 0;
    uint64_t pairedByCaller_ = 0;
    uint64_t pairedBeforeInnermost_ = 0;
};

// How a recording's thread stacks paired their Python and native halves (the recording's
// summary prints it), counted per thread and tick.
struct NativePairing {
    uint64_t firstRead = 0;       // with the Python stack read right after the native one
    uint64_t laterRead = 0;       // with a later read (PythonRereads)
    uint64_t byCaller = 0;        // of those two, the innermost run by its calling frame
    uint64_t beforeInnermost = 0; // of those two, before the innermost run had begun
    uint64_t stopped = 0;         // of the first, a thread that has not run since its switch sample
    uint64_t failed = 0;          // none: left out of the sample, counted as an error
    bool switchSamples = true;    // false: the kernel refused them (PerfThreadEvents)
};
// "Native stacks: ..." for the summary.
std::string describePairing(const NativePairing& p);

// What both native sources share: the inner Python source and the StackSource plumbing.
// A thread whose two stacks do not pair up is left out of that sample and counted.
class NativeStackSourceBase : public StackSourceWrapper {
public:
    // Read by the recording's thread once the sampler has stopped.
    NativePairing pairing() const {
        NativePairing p = pairing_;
        p.firstRead = paired_ - p.laterRead;
        p.byCaller = merger_.pairedByCaller();
        p.beforeInnermost = merger_.pairedBeforeInnermost();
        return p;
    }

protected:
    NativeStackSourceBase(StackSource& inner, std::unique_ptr<NativeUnwinder> unwinder, bool all);
    // Merges every read thread with `nativeOf`, dropping those it fails for.
    template <typename NativeOf>
    ReadOutcome mergeAll(std::vector<ThreadStack>& out, size_t& count, NativeOf&& nativeOf);

    NativeStackMerger merger_;
    remote::RemoteMemory memory_;
    // The live stack, a page per syscall, for one thread's unwind.
    remote::ProcessMemory& liveStack() {
        stackPages_.clear(); // the last thread's pages, or this one's from another tick
        return stackPages_;
    }
    remote::PageCache stackPages_{memory_};
    NativePairing pairing_; // but firstRead: paired_ less the later reads
    uint64_t paired_ = 0;
};

// --native-stacks --blocking: every thread stopped (ptrace) for each sample, registers
// from PTRACE_GETREGS, the stack read live. py-spy's way; the reference for the other.
class BlockingNativeStackSource final : public NativeStackSourceBase {
public:
    static Result<std::unique_ptr<BlockingNativeStackSource>> create(StackSource& inner, bool all);
    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;

private:
    using NativeStackSourceBase::NativeStackSourceBase;
};

// --native-stacks: nothing stopped. Each thread's registers and stack top come from its
// newest perf sample (PerfThreadEvents); the Python stack is read as usual, right after.
// On 3.12+ every Python run must still sit in the sampled C stack (its entry frame's
// address), so a thread that moved on between the two reads is not a mix: the Python
// stacks are read again (PythonRereads), and the first whose runs pair with the sample is
// taken; a thread that none pairs with is an error.
class PerfNativeStackSource final : public NativeStackSourceBase {
public:
    static Result<std::unique_ptr<PerfNativeStackSource>> create(StackSource& inner, bool all,
                                                                 uint64_t intervalUs);
    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;

private:
    PerfNativeStackSource(StackSource& inner, std::unique_ptr<NativeUnwinder> unwinder, bool all,
                          std::unique_ptr<PerfThreadEvents> events, uint64_t intervalUs);
    static constexpr int kTornRetries = 2; // more reads when the first one is torn
    // A thread with no perf sample yet: blocked since before its events opened.
    bool mergeBlocked(ThreadStack& t);
    std::unique_ptr<PerfThreadEvents> events_;
    // A tenth of the interval for the later reads of threads that did not pair.
    PythonRereads rereads_;
    // Threads merged by mergeBlocked, until their first perf sample: one that has not run
    // has the same stack, so it is unwound once, not every tick (nor failed every tick).
    struct BlockedStack {
        std::vector<FrameId> python, merged;
        std::string why; // the merge failed: why
    };
    std::unordered_map<uint64_t, BlockedStack> blocked_;
    uint64_t reads_ = 0;
};

// --native-stacks: the blocking source or the perf one, over `inner`.
Result<std::unique_ptr<NativeStackSourceBase>>
openNativeStackSource(StackSource& inner, bool all, bool blocking, uint64_t intervalUs);

} // namespace gilscope::native
