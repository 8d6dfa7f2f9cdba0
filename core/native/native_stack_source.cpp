#include "core/native/native_stack_source.h"

#include "core/remote/thread_freezer.h"
#include "core/target/attached_process.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/ptrace.h>
#include <sys/user.h>

namespace gilscope::native {

namespace {

// The target's thread ids, through its door (none once it has ended).
std::vector<int> taskIds(const StackSource& source) {
    const auto door = source.process();
    return door ? door->proc().tasks() : std::vector<int>{};
}

uint64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

bool threadRegisters(int tid, Registers& out, std::string& why) {
    user_regs_struct r{};
    if (::ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) {
        why = std::string("cannot read the registers of thread ") + std::to_string(tid) + ": " +
              std::strerror(errno);
        return false;
    }
    out = Registers::fromPtrace(r);
    return true;
}

// A perf sample's stack copy, and the live stack beyond it (the root side, which does
// not change while the thread is deeper).
class SampledStack final : public remote::ProcessMemory {
public:
    SampledStack(const PerfSample& s, remote::ProcessMemory& live) : s_(s), live_(live) {}
    size_t readPartial(uint64_t addr, void* dst, size_t len) override {
        const uint64_t begin = s_.stackAddr, end = begin + s_.stack.size();
        if (addr >= begin && addr + len <= end && addr + len >= addr) {
            std::memcpy(dst, s_.stack.data() + (addr - begin), len);
            return len;
        }
        const size_t n = live_.readPartial(addr, dst, len);
        lastErrno_ = live_.lastErrno();
        return n;
    }
    size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) override {
        size_t done = 0;
        for (; done < remote.size(); ++done) {
            const auto addr = reinterpret_cast<uint64_t>(remote[done].iov_base);
            if (readPartial(addr, local[done].iov_base, remote[done].iov_len) !=
                remote[done].iov_len)
                break;
        }
        return done;
    }

private:
    const PerfSample& s_;
    remote::ProcessMemory& live_;
};

Result<std::unique_ptr<NativeUnwinder>> openUnwinder(const StackSource& python) {
    auto door = python.process();
    auto unwinder =
        door ? NativeUnwinder::open(std::move(door)) : NativeUnwinder::open(python.pid());
    if (!unwinder)
        return makeError(ErrorKind::Internal,
                         "--native-stacks: " + unwinder.error().message +
                             " (elfutils reads the target's libraries from /proc/PID/maps)");
    return unwinder;
}

} // namespace

NativeStackMerger::NativeStackMerger(FrameRegistry& registry,
                                     std::unique_ptr<NativeUnwinder> unwinder, int pythonMinor,
                                     bool all, uint64_t runtimeAddress)
    : registry_(registry), unwinder_(std::move(unwinder)), symbols_(registry),
      runtimeAddress_(runtimeAddress) {
    options_.all = all;
    options_.runs = pythonMinor >= 11 ? PythonRuns::Entries : PythonRuns::OnePerFrame;
    synthetic_ = registry.internString(kPseudoFrameFile); // <GC> and other frames of no file
}

bool NativeStackMerger::unwind(uint64_t tid, const Registers& regs, remote::ProcessMemory& stack,
                               std::string& why) {
    named_.clear();
    if (!unwinder_->unwind(static_cast<int>(tid), regs, stack, frames_)) {
        why = "cannot unwind thread " + std::to_string(tid) + ": " + unwinder_->why();
        return false;
    }
    for (const NativeFrame& f : frames_)
        named_.push_back({symbols_.lookup(*unwinder_, f.lookupPc()), f.sp});
    if (options_.interpreter == kNoString && runtimeAddress_ != 0) // once the module is mapped
        options_.interpreter = symbols_.moduleOf(*unwinder_, runtimeAddress_);
    readSampledEntries(stack);
    return true;
}

void NativeStackMerger::readSampledEntries(remote::ProcessMemory& stack) {
    sampled_.clear();
    if (previousOffset_ == 0) return;
    for (size_t i = 0; i + 1 < named_.size(); ++i) {
        if (named_[i].symbol.kind != NativeKind::Eval) continue;
        const uint64_t cfa = named_[i + 1].sp;
        for (const EntryPlace& p : entryPlaces_) {
            uint64_t previous = 0;
            if (p.seen >= 2 && p.offset <= cfa &&
                stack.readValue(cfa - p.offset + previousOffset_, previous))
                sampled_.push_back({i, previous});
        }
    }
}

void NativeStackMerger::learnEntryPlaces(const ThreadStack& t) {
    if (learnedPairs_ >= kLearnPairs) return;
    ++learnedPairs_;
    for (const EvalEntry& e : t.evalEntries) {
        if (e.address == 0) continue;
        previousOffset_ = e.previousOffset;
        for (size_t i = 0; i + 1 < named_.size(); ++i) {
            if (!(named_[i].sp <= e.address && e.address < named_[i + 1].sp)) continue;
            if (named_[i].symbol.kind != NativeKind::Eval) break;
            const uint64_t offset = named_[i + 1].sp - e.address;
            auto p = std::find_if(entryPlaces_.begin(), entryPlaces_.end(),
                                  [&](const EntryPlace& x) { return x.offset == offset; });
            if (p != entryPlaces_.end())
                ++p->seen;
            else if (entryPlaces_.size() < kMaxEntryPlaces)
                entryPlaces_.push_back({offset, 1});
            break;
        }
    }
}

bool NativeStackMerger::pair(ThreadStack& t, std::string& why, bool readAfterSample) {
    MergeInput in;
    in.python = t.frames;
    in.entries = t.evalEntries;
    in.native = named_;
    while (in.syntheticLeaf < t.frames.size() &&
           registry_.frame(t.frames[in.syntheticLeaf]).filename == synthetic_)
        ++in.syntheticLeaf;
    in.sampled = sampled_;
    in.readAfterSample = readAfterSample;
    std::string mismatch;
    MergeHow how = MergeHow::Exact;
    if (!mergeStacks(in, options_, registry_, merged_, mismatch, &how)) {
        why = "thread " + std::to_string(t.threadId) + ": " + mismatch;
        return false;
    }
    if (how == MergeHow::ByCaller)
        ++pairedByCaller_;
    else if (how == MergeHow::BeforeInnermost)
        ++pairedBeforeInnermost_;
    else
        learnEntryPlaces(t); // only stacks that paired exactly teach
    t.frames.swap(merged_);
    return true;
}

NativeStackSourceBase::NativeStackSourceBase(StackSource& inner,
                                             std::unique_ptr<NativeUnwinder> unwinder, bool all)
    : StackSourceWrapper(inner), merger_(inner.registry(), std::move(unwinder),
                                         inner.pythonVersion().minor, all, inner.runtimeAddress()),
      memory_(inner.process() ? remote::RemoteMemory(*inner.process())
                              : remote::RemoteMemory(inner.pid())) {
}

template <typename NativeOf>
ReadOutcome NativeStackSourceBase::mergeAll(std::vector<ThreadStack>& out, size_t& count,
                                            NativeOf&& nativeOf) {
    size_t kept = 0;
    const uint64_t before = pairing_.failed;
    for (size_t i = 0; i < count; ++i) {
        ThreadStack& t = out[i];
        if (!t.skipped && !nativeOf(t)) {
            ++pairing_.failed;
            continue; // this thread's stack is not shown this sample
        }
        if (!t.skipped) ++paired_;
        if (kept != i) std::swap(out[kept], t);
        ++kept;
    }
    count = kept;
    return kept > 0 || pairing_.failed == before ? ReadOutcome::Ok : ReadOutcome::Error;
}

Result<std::unique_ptr<BlockingNativeStackSource>>
BlockingNativeStackSource::create(StackSource& inner, bool all) {
    auto unwinder = openUnwinder(inner);
    if (!unwinder) return unwinder.error();
    return std::unique_ptr<BlockingNativeStackSource>(
        new BlockingNativeStackSource(inner, std::move(*unwinder), all));
}

ReadOutcome BlockingNativeStackSource::read(std::vector<ThreadStack>& out, size_t& count) {
    auto frozen = remote::FrozenThreads::freeze(inner_.process());
    if (!frozen) {
        why_ = frozen.error().message;
        return frozen.error().kind == ErrorKind::ProcessNotFound ? ReadOutcome::ProcessEnded
                                                                 : ReadOutcome::Error;
    }
    const ReadOutcome outcome = inner_.read(out, count);
    if (outcome != ReadOutcome::Ok) return outcome;
    return mergeAll(out, count, [&](ThreadStack& t) {
        Registers regs;
        return threadRegisters(static_cast<int>(t.threadId), regs, why_) &&
               merger_.merge(t, regs, liveStack(), why_);
    });
}

Result<std::unique_ptr<PerfNativeStackSource>>
PerfNativeStackSource::create(StackSource& inner, bool all, uint64_t intervalUs) {
    auto events = PerfThreadEvents::open(inner.pid(), intervalUs * 1000);
    if (!events) return events.error();
    auto unwinder = openUnwinder(inner);
    if (!unwinder) return unwinder.error();
    std::unique_ptr<PerfNativeStackSource> s(new PerfNativeStackSource(
        inner, std::move(*unwinder), all, std::move(*events), intervalUs));
    for (int tid : taskIds(inner))
        s->events_->track(tid);
    return s;
}

PerfNativeStackSource::PerfNativeStackSource(StackSource& inner,
                                             std::unique_ptr<NativeUnwinder> unwinder, bool all,
                                             std::unique_ptr<PerfThreadEvents> events,
                                             uint64_t intervalUs)
    : NativeStackSourceBase(inner, std::move(unwinder), all), events_(std::move(events)),
      rereads_(inner, intervalUs * 1000 / 10) {
    pairing_.switchSamples = events_->switchSamples();
}

ReadOutcome PerfNativeStackSource::read(std::vector<ThreadStack>& out, size_t& count) {
    rereads_.startTick();
    uint64_t readStartNs = monotonicNs();
    ReadOutcome outcome = inner_.read(out, count);
    // A torn read (the stacks changed under the walk): this mode pairs each thread with
    // whichever read matches its sample anyway, so the next one serves as well.
    for (int i = 0; i < kTornRetries && outcome == ReadOutcome::Error; ++i) {
        readStartNs = monotonicNs();
        outcome = inner_.read(out, count);
    }
    if (outcome != ReadOutcome::Ok) return outcome;
    if (++reads_ % 1024 == 0) { // close the events of threads that are gone
        events_->retain(taskIds(inner_));
        blocked_.clear(); // and forget those that are gone
    }
    return mergeAll(out, count, [&](ThreadStack& t) {
        const int tid = static_cast<int>(t.threadId);
        if (!events_->track(tid)) {
            why_ = events_->why();
            return false;
        }
        const PerfSample* s = events_->newest(tid);
        if (!s) return mergeBlocked(t);
        if (!blocked_.empty()) blocked_.erase(t.threadId); // it ran: its stack may differ
        SampledStack stack(*s, liveStack());
        if (!merger_.unwind(t.threadId, s->regs, stack, why_)) return false;
        // Stopped at its sample, before the read, and not run since (the buffer was looked
        // at after the read): the read is of the sample's instant.
        if (s->stoppedSince && s->timeNs <= readStartNs) {
            if (!merger_.pair(t, why_)) return false;
            ++pairing_.stopped;
            return true;
        }
        // The thread may have moved on since its sample: a later read may find it back where
        // the sample has it (why_ keeps why the first read did not pair).
        if (merger_.pair(t, why_, true)) return true;
        std::string why;
        const bool later =
            rereads_.pair(t, [&](ThreadStack& again) { return merger_.pair(again, why, true); });
        pairing_.laterRead += later;
        return later;
    });
}

bool PerfNativeStackSource::mergeBlocked(ThreadStack& t) {
    // No perf sample: the thread has not run since its events opened. Blocked in the
    // kernel, it stays put, so its stack pointer and pc from /proc and its live stack
    // are its stack now (without pausing it). If it wakes meanwhile, the merge fails.
    if (auto it = blocked_.find(t.threadId);
        it != blocked_.end() && it->second.python == t.frames) {
        if (!it->second.why.empty()) {
            why_ = it->second.why;
            return false;
        }
        t.frames = it->second.merged;
        return true;
    }
    std::vector<FrameId> python = t.frames;
    const std::string path = "task/" + std::to_string(t.threadId) + "/syscall";
    const auto door = inner_.process();
    const auto text = door ? door->proc().read(path, 512) : std::nullopt;
    const auto regs = text ? Registers::fromSyscallFile(*text) : std::nullopt;
    if (!regs) {
        why_ = "thread " + std::to_string(t.threadId) +
               " has not run since its perf events opened, and " + path +
               (text ? " says it runs" : " cannot be read") + ": no native stack yet";
        return false;
    }
    const bool merged = merger_.merge(t, *regs, liveStack(), why_);
    blocked_[t.threadId] = {std::move(python), merged ? t.frames : std::vector<FrameId>{},
                            merged ? std::string() : why_};
    return merged;
}

Result<std::unique_ptr<NativeStackSourceBase>>
openNativeStackSource(StackSource& inner, bool all, bool blocking, uint64_t intervalUs) {
    if (blocking) {
        auto s = BlockingNativeStackSource::create(inner, all);
        if (!s) return s.error();
        return std::unique_ptr<NativeStackSourceBase>(std::move(*s));
    }
    auto s = PerfNativeStackSource::create(inner, all, intervalUs);
    if (!s) return s.error();
    return std::unique_ptr<NativeStackSourceBase>(std::move(*s));
}

std::string describePairing(const NativePairing& p) {
    std::string s = "Native stacks: " + std::to_string(p.firstRead) +
                    " paired with the Python stack read after them";
    if (p.laterRead > 0) s += ", " + std::to_string(p.laterRead) + " with a later read";
    std::string how;
    if (p.byCaller > 0)
        how = std::to_string(p.byCaller) + " of them by the callback's calling frame";
    if (p.stopped > 0)
        how += (how.empty() ? "" : ", ") + std::to_string(p.stopped) +
               " of a thread stopped since its sample";
    if (p.beforeInnermost > 0)
        how += (how.empty() ? "" : ", ") + std::to_string(p.beforeInnermost) +
               " sampled before a callback the read saw had begun";
    if (!how.empty()) s += " (" + how + ")";
    s += "; " + std::to_string(p.failed) + " did not pair (errors)";
    if (!p.switchSamples)
        s += ". The kernel records no context switches for this user (perf_event_paranoid "
             "above 1, no CAP_PERFMON), so a thread that stopped running is paired with its "
             "last CPU sample: more errors";
    return s;
}

} // namespace gilscope::native
