#include "core/remote/live_process_reader.h"

#include "core/remote/proc_files.h"
#include "core/remote/struct_view.h"
#include "core/sample/thread_status.h"

#include <cerrno>
#include <ctime>

namespace gilscope::remote {

namespace {

constexpr size_t kMaxInterpreters = 256;

// How much of a thread state a sample reads: what the walk needs, asyncio's fields with
// --async-aware, the context with --label-from.
size_t threadStateBytes(const ReadOptions& o, const PythonLayout& l) {
    if (o.asyncMode != AsyncMode::Off) return l.tsSize;
    uint64_t size = l.threadStateReadSize();
    if (!o.labels.empty() && l.tsContext != kAbsent)
        size = std::min<uint64_t>(std::max<uint64_t>(size, l.tsContext + 8), l.tsSize);
    return size;
}

} // namespace

LiveProcessReader::LiveProcessReader(std::shared_ptr<const target::AttachedProcess> door,
                                     const ReadOptions& options, RuntimeLocation location,
                                     PythonLayout layout)
    : door_(std::move(door)), pid_(door_->pid()), options_(options), loc_(std::move(location)),
      layout_(layout), mem_(*door_),
      codes_(mem_, layout_, registry_, loc_.codeTypeAddr, options.opcodes),
      walker_(mem_, layout_, registry_, codes_, options.opcodes), threadState_(door_->proc()),
      waitFrames_(door_->proc(), registry_), exec_(door_),
      readAhead_(walker_, options.allThreads, layout_.tsSize, threadStateBytes(options, layout_)) {
    if (options_.allThreads) runtimeWin_.include(layout_.rtInterpretersHead, 8);
    runtimeWin_.include(layout_.rtGilHolder, 8);
    runtimeWin_.include(layout_.rtGilLocked, 4);
    constexpr uint64_t kSwitchesFromHolder =
        PythonLayout::kGilSwitchesInStruct - PythonLayout::kGilHolderInStruct;
    if (layout_.rtGilHolder != kAbsent)
        runtimeWin_.include(layout_.rtGilHolder + kSwitchesFromHolder, 8);
    runtimeWin_.include(layout_.rtGcCollecting, 4);
    for (uint64_t off : {layout_.inNext, layout_.inId, layout_.inThreadsHead, layout_.inThreadsMain,
                         layout_.inGilPointer, layout_.inGilHolder})
        interpWin_.include(off, 8);
    interpWin_.include(layout_.inGcCollecting, 4);
    interpWin_.include(layout_.inGilLocked, 4);
    if (layout_.inGilHolder != kAbsent)
        interpWin_.include(layout_.inGilHolder + kSwitchesFromHolder, 8);
    interpWin_.include(layout_.inCodeGeneration, 8);
    tstate_.resize(layout_.tsSize);
    // --async-aware reads asyncio's fields of the thread state too: those lie further on.
    tstateRead_ = threadStateBytes(options_, layout_);
    if (!options_.labels.empty() && options_.asyncMode == AsyncMode::Off)
        labeller_ = std::make_unique<SampleLabeller>(mem_, layout_, registry_, options_.labels,
                                                     layout_.tsContext != kAbsent, kMaxThreads);
    if (options_.locals) locals_ = std::make_unique<FrameLocalsReader>(mem_, layout_);
    walker_.setNoneAddress(loc_.noneAddr);
    walker_.setMaxDepth(options_.maxDepth);
    walker_.setNative(options_.native);
    threadState_.keepRecord(options_.waitFrames);
    gcFile_ = registry_.internString(kPseudoFrameFile);
    gcName_ = registry_.internString("<GC>");
    if (options_.stillProcesses && !options_.nativeStacks && options_.asyncMode == AsyncMode::Off) {
        // --mode cpu drops every thread off a CPU: what it waits for is never asked, so the
        // kernel's switch records can say where a thread is, without a /proc read.
        const bool cpuOnly = options_.mode == ProfilingMode::Cpu && !options_.reportSkipped;
        taskRuns_ = std::make_unique<KernelTaskRuns>(door_->proc(), options_.stillByPerf, cpuOnly);
        still_ = std::make_unique<StillProcess>(
            *taskRuns_, [this](uint64_t tid) { return threadState_.read(tid); }, cpuOnly);
    }
}

Status LiveProcessReader::init() {
    const uint64_t rt = loc_.runtimeAddr;
    if (layout_.rtMainThread != kAbsent &&
        !mem_.readValue(rt + layout_.rtMainThread, mainThreadId_))
        return makeError(ErrorKind::Internal, "cannot read _PyRuntime.main_thread");
    uint64_t interp = 0;
    starting_ = false;
    if (!mem_.readValue(rt + layout_.rtInterpretersHead, interp) || !plausibleAddress(interp)) {
        starting_ = interp == 0 && !mem_.processGone();
        return makeError(ErrorKind::UnsupportedVersion,
                         "the Python runtime of process " + std::to_string(pid_) +
                             " has no interpreter yet (still starting, or finalizing); retry");
    }
    // The main interpreter is the one with id 0 (the oldest, last in the list).
    for (size_t i = 0; interp && i < kMaxInterpreters; ++i) {
        InterpState s;
        if (!readInterp(interp, s)) break;
        mainInterp_ = interp;
        if (s.id == 0) break;
        interp = s.next;
    }
    if (!mainInterp_)
        return makeError(ErrorKind::UnsupportedVersion,
                         "cannot read the interpreter state of process " + std::to_string(pid_));
    // Async-aware stacks are tasks, not threads: they carry their own names.
    if (options_.threadNames && options_.asyncMode == AsyncMode::Off)
        names_ = std::make_unique<ThreadNameWatcher>(door_, layout_, mainInterp_,
                                                     options_.threadNameRefreshMs);
    if (layout_.tsNativeThreadId == kAbsent && plausibleAddress(mainThreadId_)) {
        // <= 3.10 stores only pthread_t; find the kernel tid inside glibc's struct pthread
        // by looking for the pid (= the main thread's tid) near the usual place.
        std::vector<int32_t> words(512);
        const size_t got = mem_.readPartial(mainThreadId_, words.data(), words.size() * 4);
        if (got >= 724 && words[720 / 4] == pid_)
            pthreadTidOffset_ = 720;
        else
            for (size_t i = 0; i < got / 4; ++i)
                if (words[i] == pid_) {
                    pthreadTidOffset_ = i * 4;
                    break;
                }
    }
    return {};
}

bool LiveProcessReader::exited() {
    if (!mem_.processGone() && door_->stillAttached()) return false;
    why_ = "process " + std::to_string(pid_) + " has exited";
    return true;
}

bool LiveProcessReader::provenOurs() {
    if (!mem_.readsProveIdentity() || mem_.processGone()) return false;
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts); // the vDSO's: no syscall
    const uint64_t nowMs = uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
    if (nowMs - doorAskedMs_ < 10) return true;
    doorAskedMs_ = nowMs;
    return false;
}

bool LiveProcessReader::execed() {
    std::string running;
    if (!exec_.execed(&running)) return false;
    why_ = "process " + std::to_string(pid_) + " replaced its program (exec of " + running +
           "): its Python interpreter is gone";
    return true;
}

ReadOutcome LiveProcessReader::fail(std::string why) {
    if (exited()) return ReadOutcome::ProcessEnded;
    // A target that exec'd another program keeps its pid, but its Python is gone: every
    // read fails from then on. Looked for on the first failure and every 64th after
    // (failures come at the sample rate; a look reads two /proc files).
    if (failuresSinceExecCheck_++ % 64 == 0 && execed()) return ReadOutcome::ProcessEnded;
    why_ = std::move(why);
    return ReadOutcome::Error;
}

bool LiveProcessReader::imageReplaced() {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
    const int64_t ns = int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
    if (ns < nextImageCheckNs_) return false;
    nextImageCheckNs_ = ns + 1'000'000'000;
    if (!exec_.imageGone(loc_.runtimeAddr)) return false;
    if (!exited() && !execed())
        why_ = "process " + std::to_string(pid_) +
               " replaced its program (exec of a new image): its Python interpreter is gone";
    return true;
}

ReadOutcome LiveProcessReader::read(std::vector<ThreadStack>& out, size_t& count) {
    count = 0;
    why_.clear();
    if (options_.asyncMode != AsyncMode::Off) {
        walker_.budget().begin();
        return readAsync(out, count);
    }
    if (still_) {
        if (still_->stillSinceLastRead() && reuseLastSample(out, count)) return ReadOutcome::Ok;
        // --mode cpu: no thread on a CPU is an empty sample, whatever the memory holds.
        if (options_.mode == ProfilingMode::Cpu && !options_.reportSkipped &&
            still_->nothingOnCpu())
            return ReadOutcome::Ok;
    }
    // (A still process cannot have exec'd: it ran nothing.)
    if (imageReplaced()) return ReadOutcome::ProcessEnded;
    walker_.budget().begin();
    lastOut_ = nullptr;
    // One syscall for the main interpreter's hot fields, the runtime's GIL/GC fields, the
    // thread state we expect to need first (the one we needed last time) and, when only
    // that thread is sampled, the frame data its last walk needed.
    batchLocal_.clear();
    batchRemote_.clear();
    batchLocal_.push_back({interpWin_.bytes.data(), interpWin_.bytes.size()});
    batchRemote_.push_back(
        {reinterpret_cast<void*>(mainInterp_ + interpWin_.lo), interpWin_.bytes.size()});
    if (!runtimeWin_.empty()) {
        batchLocal_.push_back({runtimeWin_.bytes.data(), runtimeWin_.bytes.size()});
        batchRemote_.push_back(
            {reinterpret_cast<void*>(loc_.runtimeAddr + runtimeWin_.lo), runtimeWin_.bytes.size()});
    }
    const size_t fixed = batchLocal_.size();
    if (predictedTstate_) {
        batchLocal_.push_back({tstate_.data(), tstateRead_});
        batchRemote_.push_back({reinterpret_cast<void*>(predictedTstate_), tstateRead_});
    }
    const size_t ours = batchLocal_.size();
    readAhead_.plan(batchLocal_, batchRemote_);
    const size_t done = mem_.readBatch(batchLocal_, batchRemote_);
    if (done < fixed) return fail("cannot read the interpreter state");
    tstateValid_ = done >= ours && predictedTstate_ != 0;
    tstateAddr_ = tstateValid_ ? predictedTstate_ : 0;
    readAhead_.arrived(done);

    if (layout_.inCodeGeneration != kAbsent) {
        const uint64_t gen = interpWin_.u64(layout_.inCodeGeneration);
        if (gen != codeGeneration_) codes_.clear(); // code objects were freed: cache is stale
        codeGeneration_ = gen;
    }
    if (options_.allThreads) readSkippedFrames();
    ReadOutcome outcome = ReadOutcome::Ok;
    if (!options_.allThreads) {
        outcome = readInterpreter(decodeInterp(mainInterp_), true, out, count);
    } else {
        uint64_t interp = runtimeWin_.u64(layout_.rtInterpretersHead);
        for (size_t i = 0; interp && i < kMaxInterpreters && outcome == ReadOutcome::Ok; ++i) {
            // The batch brought the main interpreter; once the window held another one,
            // every interpreter is read again.
            InterpState s;
            if (interp == mainInterp_ && i == 0)
                s = decodeInterp(interp);
            else if (!readInterp(interp, s))
                return fail("cannot read an interpreter");
            outcome = readInterpreter(s, interp == mainInterp_, out, count);
            interp = s.next;
        }
    }
    if (still_) {
        still_->afterRead(outcome == ReadOutcome::Ok);
        if (outcome == ReadOutcome::Ok) {
            lastOut_ = out.data();
            lastCount_ = count;
        }
    }
    threadState_.endSample();
    readAhead_.endSample();
    unchanged_.endSample();
    // process_vm_readv reads by pid: what it read came from the process attached to only
    // if each read brought back the process's identity mark, or (without a mark) if the
    // process was still alive after the reads. Otherwise the pid may already name another
    // process, whose memory must not become a sample.
    if (outcome == ReadOutcome::Ok && !provenOurs() && exited()) {
        count = 0;
        return ReadOutcome::ProcessEnded;
    }
    if (names_ && outcome == ReadOutcome::Ok) names_->noteThreads(out, count);
    return outcome;
}

bool LiveProcessReader::reuseLastSample(std::vector<ThreadStack>& out, size_t& count) {
    // --mode cpu keeps only threads on a CPU, and none has been on one: nothing.
    if (options_.mode == ProfilingMode::Cpu && !options_.reportSkipped) {
        count = 0;
        return true;
    }
    // Only the caller's own vector still holds what the last read put in it. It stands
    // as it is: every thread was probed asleep for it (no OnCpu), and --mode filtered it.
    if (!lastOut_ || out.data() != lastOut_ || lastCount_ > out.size()) return false;
    count = lastCount_;
    return true;
}

void LiveProcessReader::readSkippedFrames() {
    // Threads at rest are read ahead without their frames (UnchangedStacks serves them).
    // Once the GIL has switched they are walked: their frames come in one more call,
    // not in one or more calls each.
    const InterpState main = decodeInterp(mainInterp_);
    const bool switched = !main.gilSwitchesKnown || main.gilSwitches != lastSwitches_;
    lastSwitches_ = main.gilSwitches;
    if (!switched) return;
    lateLocal_.clear();
    lateRemote_.clear();
    if (readAhead_.planSkipped(lateLocal_, lateRemote_) == 0) return;
    readAhead_.skippedArrived(mem_.readBatch(lateLocal_, lateRemote_));
}

bool LiveProcessReader::takeThreadNames(std::vector<ThreadName>& changed) {
    return names_ && names_->takeChanges(changed);
}

std::vector<ThreadName> LiveProcessReader::threadNamesNow() {
    return names_ ? names_->refreshNow() : std::vector<ThreadName>{};
}

} // namespace gilscope::remote
