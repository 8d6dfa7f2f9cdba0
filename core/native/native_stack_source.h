#pragma once

#include "core/native/native_symbols.h"
#include "core/native/native_unwinder.h"
#include "core/native/perf_thread_events.h"
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
    NativeStackMerger(FrameRegistry& registry, std::unique_ptr<NativeUnwinder> unwinder,
                      int pythonMinor, bool all);
    // Replaces t.frames with the merged stack; false (t unchanged) with why.
    bool merge(ThreadStack& t, const Registers& regs, remote::ProcessMemory& stack,
               std::string& why) {
        return unwind(t.threadId, regs, stack, why) && pair(t, why);
    }
    // The two halves of merge: unwind and name thread `tid`'s native stack, then pair it
    // with a Python stack of that thread (again with another read, if need be).
    bool unwind(uint64_t tid, const Registers& regs, remote::ProcessMemory& stack,
                std::string& why);
    bool pair(ThreadStack& t, std::string& why);
    NativeUnwinder& unwinder() { return *unwinder_; }

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
    StringId synthetic_ = 0;
    std::vector<NativeFrame> frames_;
    std::vector<NativeStackFrame> named_;
    std::vector<FrameId> merged_;
    std::vector<SampledEntry> sampled_;
    std::vector<EntryPlace> entryPlaces_;
    uint32_t learnedPairs_ = 0;
    uint32_t previousOffset_ = 0; // EvalEntry::previousOffset, once a read gave one
};

// What both native sources share: the inner Python source and the StackSource plumbing.
// A thread whose two stacks do not pair up is left out of that sample and counted.
class NativeStackSourceBase : public StackSourceWrapper {
public:
    uint64_t mismatches() const { return mismatches_; }

protected:
    NativeStackSourceBase(StackSource& inner, std::unique_ptr<NativeUnwinder> unwinder, bool all);
    // Merges every read thread with `nativeOf`, dropping those it fails for.
    template <typename NativeOf>
    ReadOutcome mergeAll(std::vector<ThreadStack>& out, size_t& count, NativeOf&& nativeOf);

    NativeStackMerger merger_;
    remote::RemoteMemory memory_;
    // The live stack, a page per syscall: cleared before each thread's unwind.
    remote::PageCache stackPages_{memory_};
    uint64_t mismatches_ = 0;
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
// stacks are read again, up to kRereads times, and the first whose runs pair with the
// sample is taken; a thread that none pairs with is an error.
class PerfNativeStackSource final : public NativeStackSourceBase {
public:
    static Result<std::unique_ptr<PerfNativeStackSource>> create(StackSource& inner, bool all,
                                                                 uint64_t intervalUs);
    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;

private:
    PerfNativeStackSource(StackSource& inner, std::unique_ptr<NativeUnwinder> unwinder, bool all,
                          std::unique_ptr<PerfThreadEvents> events, uint64_t intervalUs);
    // More reads of the Python stacks in a tick, while a thread's stack does not pair with
    // its sample (a callback that comes and goes every few microseconds): at most this many,
    // and only while they took less than a twentieth of the sampling interval.
    static constexpr size_t kRereads = 16;
    static constexpr uint64_t kRereadShare = 10;

    // A thread with no perf sample yet: blocked since before its events opened.
    bool mergeBlocked(ThreadStack& t);
    // Pairs thread t's unwound sample with the Python stack of a later read (round 1..).
    bool pairWithReread(ThreadStack& t);
    struct Reread {
        std::vector<ThreadStack> stacks;
        size_t count = 0;
        bool ok = false;
    };
    std::unique_ptr<PerfThreadEvents> events_;
    std::vector<Reread> rereads_; // this tick's, read when first needed
    size_t rereadsDone_ = 0;
    uint64_t rereadBudgetNs_ = 0; // per tick
    uint64_t rereadSpentNs_ = 0;  // this tick
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
Result<std::unique_ptr<StackSource>> openNativeStackSource(StackSource& inner, bool all,
                                                           bool blocking, uint64_t intervalUs);

} // namespace gilscope::native
