// One thread of a live process: its thread state's flags (GIL, CPU, exception, main)
// and its frames, re-read once within the sample when the walk was torn.
#include "core/remote/live_process_reader.h"

#include "core/remote/struct_view.h"
#include "core/sample/thread_status.h"

#include <algorithm>
#include <ctime>

namespace gilscope::remote {

namespace {

int64_t monotonicNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

} // namespace

void LiveProcessReader::setTickInterval(uint64_t intervalUs) {
    // A quarter of the interval, and never more than 1 kHz's: at a low rate (the agent's
    // 100 Hz, many processes on one thread) a torn read must not hold up the others.
    retryBudgetNs_ = static_cast<int64_t>(std::min<uint64_t>(intervalUs, 1000) * 250);
}

void LiveProcessReader::noteTorn(const std::string& why) {
    for (TornReason& r : tornReasons_)
        if (r.why == why) {
            ++r.count;
            return;
        }
    if (tornReasons_.size() < kMaxTornReasons) tornReasons_.push_back({why, 1});
}

std::vector<TornReason> LiveProcessReader::tornReasons() const {
    std::vector<TornReason> sorted = tornReasons_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const TornReason& a, const TornReason& b) { return a.count > b.count; });
    return sorted;
}

uint64_t LiveProcessReader::nativeTid(uint64_t pthreadId, uint64_t tstateId) {
    // Keyed by the pthread_t and the thread state's unique id, never reused in a process:
    // glibc reuses a finished thread's struct pthread (and so its pthread_t) for the next
    // thread, so a cache by pthread_t alone gave a short-lived thread its predecessor's
    // TID, and with it that thread's CPU state (a service with a thread per request). Not
    // by the id alone: a new thread state names its creator's pthread_t until the thread
    // starts (3.8 - 3.10 set thread_id again in the new thread).
    const std::pair<uint64_t, uint64_t> key{pthreadId, tstateId};
    if (auto it = tidByPthread_.find(key); it != tidByPthread_.end()) return it->second;
    int32_t tid = 0;
    if (!plausibleAddress(pthreadId) || !mem_.readValue(pthreadId + pthreadTidOffset_, tid) ||
        tid <= 0)
        return 0;
    if (tidByPthread_.size() > 4 * kMaxThreads) tidByPthread_.clear();
    tidByPthread_.emplace(key, static_cast<uint64_t>(tid));
    return static_cast<uint64_t>(tid);
}

FrameId LiveProcessReader::waitFrame(uint64_t tid, const ThreadStateProbe::State& kernel) {
    // The same record as at the last sample (call, arguments, stack pointer and pc): still
    // the same blocked call, so the same frame, with no look at the fd. A thread blocked
    // on a socket for a minute is described once, not at every tick.
    auto& last = lastWait_[tid];
    if (last.record == kernel.record && last.record != 0) return last.frame;
    const SyscallWait& wait = kernel.wait;
    std::string target = waitFrames_.describeFd(wait);
    // The fd was looked at after the kernel's record: if the thread has left that call
    // since, the number may name another object now. Say only the reason then, never a
    // wrong peer.
    const bool moved = !target.empty() && threadState_.read(tid).wait != wait;
    if (moved) target.clear();
    const FrameId frame = waitFrames_.frame(WaitFrames::frameName(wait, target));
    if (lastWait_.size() > 4096) lastWait_.clear(); // threads come and go: bounded
    lastWait_[tid] = {moved ? 0 : kernel.record, frame};
    return frame;
}

uint64_t LiveProcessReader::frameWord() const {
    for (uint64_t off : {layout_.tsCurrentFrame, layout_.tsCframe, layout_.tsFrame})
        if (off != kAbsent) return StructView(tstate_).field<uint64_t>(off);
    return 0;
}

bool LiveProcessReader::readThread(const InterpState& interp, uint64_t addr, bool isMainInterp,
                                   ThreadStack& stack) {
    bool tookTstate = false;
    FrameWalker::Prefetch& prefetch =
        readAhead_.visit(addr, tstate_, tstateValid_ && tstateAddr_ == addr, tookTstate);
    if (tookTstate) {
        tstateValid_ = true;
        tstateAddr_ = addr;
    }
    if (!(tstateValid_ && tstateAddr_ == addr)) {
        if (!plausibleAddress(addr) || !mem_.read(addr, tstate_.data(), tstateRead_)) {
            why_ = "cannot read a thread state";
            return false;
        }
        tstateValid_ = true;
        tstateAddr_ = addr;
    }
    if (StructView(tstate_).field<uint64_t>(layout_.tsInterp) != interp.addr) {
        why_ = "thread state changed while reading";
        return false;
    }
    stack.interpreterId = interp.id;
    stack.pythonThreadId = StructView(tstate_).field<uint64_t>(layout_.tsThreadId);
    stack.threadId = layout_.tsNativeThreadId != kAbsent
                         ? StructView(tstate_).field<uint64_t>(layout_.tsNativeThreadId)
                         : nativeTid(stack.pythonThreadId,
                                     layout_.tsUniqueId != kAbsent
                                         ? StructView(tstate_).field<uint64_t>(layout_.tsUniqueId)
                                         : 0);
    uint32_t status = 0;
    if (layout_.tsHoldsGil != kAbsent) {
        if (StructView(tstate_).field<int32_t>(layout_.tsHoldsGil) != 0)
            status |= ThreadStatus::HasGil;
        else if (layout_.tsGilRequested != kAbsent &&
                 StructView(tstate_).field<int32_t>(layout_.tsGilRequested))
            status |= ThreadStatus::GilRequested;
    } else if (interp.gilLocked && interp.gilHolder == addr) {
        status |= ThreadStatus::HasGil;
    }
    // Free-threaded: no GIL, so its bits say what CPython's own profiler makes them say
    // there: HasGil is "attached" (runs Python or the C API), and GilRequested is
    // "suspended": stopped by another thread's stop-the-world request (the GC, say).
    bool suspended = false;
    if (layout_.tsAttachState != kAbsent) {
        const int32_t attach = StructView(tstate_).field<int32_t>(layout_.tsAttachState);
        if (attach == PythonLayout::kThreadAttached) {
            status |= ThreadStatus::HasGil;
        } else if (attach == PythonLayout::kThreadSuspended) {
            status |= ThreadStatus::GilRequested;
            suspended = true;
        }
    }
    const uint64_t excValue = StructView(tstate_).field<uint64_t>(layout_.tsExcStateValue);
    if (StructView(tstate_).field<uint64_t>(layout_.tsCurrentException) != 0 ||
        (excValue != 0 && excValue != loc_.noneAddr))
        status |= ThreadStatus::HasException;
    const bool isMainThread =
        layout_.inThreadsMain == kAbsent ? isMainInterp && stack.pythonThreadId == mainThreadId_
        : interp.threadsMain             ? addr == interp.threadsMain
                                         : isMainInterp && stack.threadId == uint64_t(pid_);
    if (isMainThread) status |= ThreadStatus::MainThread;
    ThreadStateProbe::State waitState; // why it is off CPU, when it is and was probed
    bool waiting = false;
    if (!options_.cpuState && options_.mode != ProfilingMode::Cpu) {
        status |= ThreadStatus::Unknown;
    } else {
        // stillProcesses probed every thread before the read; that probe stands for it.
        const ThreadStateProbe::State* before =
            still_ ? still_->probedBefore(stack.threadId) : nullptr;
        const ThreadStateProbe::State kernel = before ? *before : threadState_.read(stack.threadId);
        switch (kernel.cpu) {
        case ThreadStateProbe::Cpu::OnCpu:
            status |= ThreadStatus::OnCpu;
            break;
        case ThreadStateProbe::Cpu::Unknown:
            status |= ThreadStatus::Unknown;
            break;
        case ThreadStateProbe::Cpu::Idle:
            break;
        }
        // <= 3.14 keep no per-thread "requested" flag: a thread that does not hold the GIL
        // and sleeps in a futex inside the GIL struct (its cond/mutex) is waiting for it.
        if (layout_.tsGilRequested == kAbsent && !(status & ThreadStatus::HasGil) &&
            interp.gilStruct != 0 && kernel.futexAddr >= interp.gilStruct &&
            kernel.futexAddr < interp.gilStruct + PythonLayout::kGilStructSize)
            status |= ThreadStatus::GilRequested;
        // A thread suspended while it was blocked in I/O, a sleep or a poll lost nothing to
        // the pause (it would not have run): its wait stands. One parked on a futex waits
        // for the world to start again (or on a lock: the pause is told first).
        if (suspended && kernel.cpu == ThreadStateProbe::Cpu::Idle &&
            kernel.wait.reason != WaitReason::Lock && kernel.wait.reason != WaitReason::Unknown &&
            kernel.wait.reason != WaitReason::None)
            status &= ~ThreadStatus::GilRequested;
        // A GIL wait is told by the interpreter; any other wait by the kernel's record.
        if (kernel.cpu == ThreadStateProbe::Cpu::Idle && !(status & ThreadStatus::GilRequested)) {
            waiting = true;
            waitState = kernel;
            ++waits_.asked;
            if (kernel.wait.reason == WaitReason::Unknown) ++waits_.unknown;
            status = withWaitReason(status, kernel.wait.reason);
        }
    }
    stack.status = status;
    stack.frames.clear();
    skipped_ = !threadMatchesMode(options_.mode, status);
    stack.skipped = skipped_;
    if (skipped_) return true; // skipped before the walk: that is what --mode saves
    // The collector runs on the thread that holds the GIL; without a GIL, it stops the
    // world, so the one thread still attached is the one collecting (HasGil says attached
    // there; a suspended thread is not it).
    const bool collects = layout_.freeThreaded && layout_.tsAttachState == kAbsent
                              ? (StructView(tstate_).field<uint32_t>(layout_.tsStatusBits) &
                                 PythonLayout::kStatusActive) != 0
                              : (status & ThreadStatus::HasGil) != 0;
    if (options_.gc && interp.gcRunning && collects) {
        FrameInfo gc{gcFile_, gcName_};
        gc.line = gc.endLine = 0;
        stack.frames.push_back(registry_.internFrame(gc));
    }
    if (waiting && options_.waitFrames)
        stack.frames.push_back(waitFrame(stack.threadId, waitState));
    const size_t gcFrames = stack.frames.size(); // the synthetic leaves: <GC>, the wait
    // A thread that ran no Python since its last walk has the same frames (exact; see
    // UnchangedStacks): served without reading them. Other interpreters than the main
    // one may have GILs of their own, whose counters are not read.
    // --native-stacks: the eval-loop entries come with the walk (never from the cache).
    const bool entries = options_.nativeStacks;
    const bool locals = locals_ != nullptr; // frames are walked to find their variables
    const bool addresses = locals || (labeller_ && labeller_->readsFrames());
    stack.evalEntries.clear();
    stack.locals.clear();
    frameAddresses_.clear();
    walker_.setEvalEntries(entries ? &stack.evalEntries : nullptr);
    walker_.setFrameAddresses(addresses ? &frameAddresses_ : nullptr);
    struct NoEntriesAfter {
        FrameWalker& w;
        ~NoEntriesAfter() {
            w.setEvalEntries(nullptr);
            w.setFrameAddresses(nullptr);
        }
    } noEntriesAfter{walker_};
    if (isMainInterp && !entries && !locals &&
        unchanged_.serve(addr, stack.threadId, frameWord(), stack.frames)) {
        readAhead_.servedUnchanged();
        if (labeller_) addLabels(stack, false, addr);
        return true;
    }
    auto walked = [&] {
        if (isMainInterp)
            unchanged_.store(addr, stack.threadId, frameWord(),
                             std::span(stack.frames).subspan(gcFrames));
        if (locals) readLocals(stack);
        if (labeller_) addLabels(stack, true, addr);
        return true;
    };
    prefetch.tstateAddr = addr;
    if (walker_.walk(tstate_, stack.frames, prefetch)) {
        ++torn_.firstTry;
        return walked();
    }
    // A torn walk (the thread ran on while its frames were copied) is read again at once
    // from a fresh copy of the thread state, until one is whole or the budget is spent;
    // only then is it an error, never a stack. Dropping it instead would bias the shares:
    // code that calls and returns fastest tears most. The sample keeps its tick's time.
    unchanged_.forget(addr);
    const int64_t deadline = monotonicNs() + retryBudgetNs_;
    for (int tries = 1;; ++tries) {
        noteTorn(walker_.why());
        stack.frames.resize(gcFrames);
        stack.evalEntries.clear();
        frameAddresses_.clear();
        if (tries >= kMaxTries || (tries >= kMinTries && monotonicNs() >= deadline)) break;
        ++torn_.tries;
        if (!mem_.read(addr, tstate_.data(), tstateRead_) ||
            StructView(tstate_).field<uint64_t>(layout_.tsInterp) != interp.addr)
            break;
        if (walker_.walk(tstate_, stack.frames, prefetch)) {
            ++torn_.reread;
            return walked();
        }
    }
    ++torn_.dropped;
    why_ = walker_.why();
    return false;
}

void LiveProcessReader::addLabels(ThreadStack& stack, bool ranSince, uint64_t tstateAddr) {
    const uint64_t context =
        layout_.tsContext != kAbsent ? StructView(tstate_).field<uint64_t>(layout_.tsContext) : 0;
    std::string torn;
    const size_t unlabelled = stack.frames.size();
    labeller_->label(stack, context, ranSince, frameAddresses_, torn);
    // A context that could not be read was most often left and freed as it was read (a
    // request's end; its successor may reuse its address): the thread's context now is
    // read once more, as a torn stack is.
    uint64_t now = 0;
    if (labeller_->contextReadFailed() &&
        mem_.read(tstateAddr + layout_.tsContext, &now, sizeof now)) {
        noteTorn(torn);
        torn.clear();
        stack.frames.resize(unlabelled);
        labeller_->label(stack, now, ranSince, frameAddresses_, torn);
    }
    // Said in the label itself, where the user looks (the reason in the stats).
    if (!torn.empty()) noteTorn(torn);
}

void LiveProcessReader::readLocals(ThreadStack& stack) {
    stack.locals.assign(stack.frames.size(), {});
    locals_->beginThread();
    for (const FrameAddress& a : frameAddresses_)
        if (a.index < stack.locals.size()) stack.locals[a.index] = locals_->read(a.frame, a.code);
}

} // namespace gilscope::remote
