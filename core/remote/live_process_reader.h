#pragma once

#include "core/remote/asyncio_layout.h"
#include "core/remote/code_cache.h"
#include "core/remote/exec_watch.h"
#include "core/remote/frame_locals.h"
#include "core/remote/frame_walker.h"
#include "core/remote/gc_counts_probe.h"
#include "core/remote/python_layout.h"
#include "core/remote/read_ahead.h"
#include "core/remote/remote_memory.h"
#include "core/remote/runtime_locator.h"
#include "core/remote/sample_labeller.h"
#include "core/remote/still_process.h"
#include "core/remote/task_graph.h"
#include "core/remote/task_runs.h"
#include "core/remote/thread_name_watcher.h"
#include "core/remote/thread_state_probe.h"
#include "core/remote/unchanged_stacks.h"
#include "core/remote/wait_frames.h"
#include "core/sample/stack_source.h"
#include "core/target/attached_process.h"

#include <memory>
#include <unordered_map>

namespace gilscope::remote {

// StackSource over a live CPython process. One read() = one consistent-as-possible
// pass over the selected threads, in as few process_vm_readv calls as we can manage:
// the interpreter's hot fields, the GIL state and the (predicted) thread state share
// one call; each thread's frames come in one more.
class LiveProcessReader final : public StackSource {
public:
    LiveProcessReader(std::shared_ptr<const target::AttachedProcess> door,
                      const ReadOptions& options, RuntimeLocation location, PythonLayout layout);

    // Finds the main interpreter and checks one read works. Errors are final, but for
    // a runtime that has no interpreter yet (runtimeStarting()): init() may be called again.
    Status init();
    bool runtimeStarting() const { return starting_; }
    // --async-aware (ReadOptions::asyncMode, 3.14+): finds where asyncio keeps its tasks.
    // Errors (offsets gilscope cannot use) are final; a target that has not imported
    // asyncio yet is not an error: each sample fails until it has.
    Status initAsyncio();

    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;
    FrameRegistry& registry() override { return registry_; }
    int pid() const override { return pid_; }
    PythonVersion pythonVersion() const override {
        return PythonVersion::fromHex(layout_.versionHex);
    }
    bool freeThreaded() const override { return layout_.freeThreaded; }
    std::string why() const override { return why_; }
    bool takeThreadNames(std::vector<ThreadName>& changed) override;
    std::vector<ThreadName> threadNamesNow() override;
    uint64_t runtimeAddress() const override { return loc_.runtimeAddr; }
    std::shared_ptr<const target::AttachedProcess> process() const override { return door_; }
    std::unique_ptr<CounterProbe> counterProbe() override {
        return makeGcCountsProbe(pid_, layout_, loc_.runtimeAddr, mainInterp_);
    }
    void setTickInterval(uint64_t intervalUs) override;
    TornReads tornReads() const override { return torn_; }
    WaitTally waitTally() const override { return waits_; }
    std::vector<TornReason> tornReasons() const override;

    uint64_t syscalls() const { return mem_.syscalls(); }
    // --label-from: contexts walked, and labels kept without a walk.
    uint64_t labelReads() const { return labeller_ ? labeller_->reads() : 0; }
    uint64_t labelReadsSaved() const { return labeller_ ? labeller_->readsSaved() : 0; }
    // Thread stacks served without a walk, because their thread ran no Python since.
    uint64_t stacksUnchanged() const { return unchanged_.served(); }
    // Samples that repeated the last one, no thread having run since (stillProcesses).
    uint64_t samplesStill() const { return still_ ? still_->samplesStill() : 0; }
    // Thread states StillProcess took from switch records instead of a /proc probe.
    uint64_t statesFromSwitches() const { return still_ ? still_->statesFromSwitches() : 0; }
    // Threads whose arrivals StillProcess reads from a perf event's page.
    size_t threadsWatchedByPerf() const { return taskRuns_ ? taskRuns_->perfThreads() : 0; }

private:
    static constexpr size_t kMaxThreads = 8192; // CPython's per-interpreter bound
    // A torn thread read is tried again at least once, and then while the retry budget
    // (a quarter of the tick interval) lasts, up to kMaxTries in all.
    static constexpr int kMinTries = 2;
    static constexpr int kMaxTries = 64;
    static constexpr size_t kMaxTornReasons = 32;

    // A byte window over a structure, read in one piece.
    struct Window {
        uint64_t lo = 0, hi = 0;
        std::vector<uint8_t> bytes;
        void include(uint64_t off, uint64_t width);
        uint64_t u64(uint64_t off) const;
        int32_t i32(uint64_t off) const;
        bool empty() const { return hi <= lo; }
        bool has(uint64_t off, uint64_t width) const {
            return off != kAbsent && off >= lo && hi >= lo && fits(off - lo, width, hi - lo);
        }
    };
    struct InterpState {
        uint64_t addr = 0;
        uint32_t id = 0;
        uint64_t threadsHead = 0, threadsMain = 0, next = 0;
        uint64_t gilHolder = 0; // valid when gilLocked
        bool gilLocked = false;
        uint64_t gilStruct = 0; // address of the _gil_runtime_state in use (0: unknown)
        bool gcRunning = false;
        uint64_t gilSwitches = 0; // the GIL's switch_number, when gilSwitchesKnown
        bool gilSwitchesKnown = false;
    };

    ReadOutcome fail(std::string why);
    void noteTorn(const std::string& why); // a walk tore: count the check that said so
    // Whether the process is gone / exec'd another program; true sets why_.
    bool exited();
    // Whether this sample's reads are known to be the attached process's without asking
    // its pidfd: RemoteMemory's identity mark came back with each, and the pidfd was asked
    // less than 10 ms ago. (A fork of the target's parent that got its pid would carry the
    // same mark: fork copies memory. Asking every 10 ms bounds what such a one could add.)
    bool provenOurs();
    bool execed();
    // The exec of a program whose image maps the runtime where the old one had it (a
    // non-PIE interpreter exec'ing itself): every read still succeeds, through caches of
    // the old image. Looked for about once a second; true: the recording has to end.
    bool imageReplaced();
    ReadOutcome readInterpreter(const InterpState& interp, bool isMain,
                                std::vector<ThreadStack>& out, size_t& count);
    // Reads the interpreter at addr into interpWin_ and decodes it.
    bool readInterp(uint64_t addr, InterpState& s);
    // Decodes the interpreter at addr from interpWin_ (just read) and runtimeWin_.
    InterpState decodeInterp(uint64_t addr);
    // False on a failed read. A thread that --mode skips reads fine but sets skipped_:
    // its status is filled, its stack is not walked, and the caller does not count it.
    bool readThread(const InterpState& interp, uint64_t tstateAddr, bool isMain,
                    ThreadStack& stack);
    // <= 3.10: the TID from glibc's struct pthread, once per thread state (tstateId).
    uint64_t nativeTid(uint64_t pthreadId, uint64_t tstateId);
    // -a: after the first read, the frames its read-ahead skipped, when they are needed.
    void readSkippedFrames();
    // The thread state's current-frame word (tstate_): part of UnchangedStacks' key.
    uint64_t frameWord() const;
    // ReadOptions::locals: each Python frame's variables, read right after its walk.
    void readLocals(ThreadStack& stack);
    // The leaf pseudo-frame for an off-CPU thread (ReadOptions::waitFrames).
    FrameId waitFrame(uint64_t tid, const ThreadStateProbe::State& kernel);
    // ReadOptions::labels: the label root frames of the thread whose state is in tstate_,
    // read again only when it ran since its last sample or entered another context.
    void addLabels(ThreadStack& stack, bool ranSince, uint64_t tstateAddr);
    // --async-aware: stacks of asyncio tasks instead of threads (live_async_read.cpp).
    ReadOutcome readAsync(std::vector<ThreadStack>& out, size_t& count);
    bool readRunningTask(uint64_t tstateAddr, uint64_t threadId);
    Status loadAsyncio(); // ok without tasks_ while the AsyncioDebug section is not mapped
    uint64_t findMainTstate(const InterpState& interp);
    // stillProcesses: the last sample again; false when `out` is not the vector the last
    // read filled.
    bool reuseLastSample(std::vector<ThreadStack>& out, size_t& count);

    std::shared_ptr<const target::AttachedProcess> door_;
    uint64_t doorAskedMs_ = 0; // when provenOurs() last left it to the pidfd
    int pid_;
    ReadOptions options_;
    RuntimeLocation loc_;
    PythonLayout layout_;
    RemoteMemory mem_;
    FrameRegistry registry_;
    CodeCache codes_;
    FrameWalker walker_;
    std::unique_ptr<FrameLocalsReader> locals_; // ReadOptions::locals
    std::vector<FrameAddress> frameAddresses_;  // the last walk's, for locals_
    ThreadStateProbe threadState_;
    WaitFrames waitFrames_;
    struct LastWait {
        uint64_t record = 0; // the kernel's record it was made from (0: made from none)
        FrameId frame;
    };
    std::unordered_map<uint64_t, LastWait> lastWait_; // by thread id
    std::unique_ptr<SampleLabeller> labeller_;        // ReadOptions::labels
    std::unique_ptr<KernelTaskRuns> taskRuns_;        // stillProcesses
    std::unique_ptr<StillProcess> still_;
    const ThreadStack* lastOut_ = nullptr; // the last good read's output (the caller's
    size_t lastCount_ = 0;                 // vector) and length, which reuseLastSample uses
    ExecWatch exec_;
    uint64_t failuresSinceExecCheck_ = 0;
    int64_t nextImageCheckNs_ = 0; // ExecWatch::imageGone, about once a second
    std::string why_;
    TornReads torn_;
    WaitTally waits_; // wait reasons asked of the kernel, and those it could not tell
    std::vector<TornReason> tornReasons_;
    int64_t retryBudgetNs_ = 250'000; // a quarter of 1 kHz's interval until told the rate
    bool skipped_ = false;
    bool starting_ = false; // init() found no interpreter in a live runtime

    Window runtimeWin_, interpWin_;
    std::vector<iovec> batchLocal_, batchRemote_; // the first read of every sample
    std::vector<iovec> lateLocal_, lateRemote_;   // readSkippedFrames' second read
    uint64_t lastSwitches_ = 0;
    ReadAhead readAhead_;
    UnchangedStacks unchanged_; // the main interpreter's threads
    uint64_t mainInterp_ = 0;
    uint64_t mainThreadId_ = 0;    // <= 3.12: _PyRuntime.main_thread
    uint64_t predictedTstate_ = 0; // tstate read speculatively with the interpreter window
    std::vector<uint8_t> tstate_;  // tsSize bytes, of which tstateRead_ are read
    size_t tstateRead_ = 0;
    bool tstateValid_ = false;
    uint64_t tstateAddr_ = 0;
    uint64_t codeGeneration_ = 0;
    uint64_t pthreadTidOffset_ = 720; // glibc x86_64: struct pthread.tid (<= 3.10)
    struct PthreadKeyHash {
        size_t operator()(const std::pair<uint64_t, uint64_t>& k) const noexcept {
            return std::hash<uint64_t>{}(k.first ^ (k.second * 0x9E3779B97F4A7C15ull));
        }
    };
    // By pthread_t and thread state id (nativeTid).
    std::unordered_map<std::pair<uint64_t, uint64_t>, uint64_t, PthreadKeyHash> tidByPthread_;
    StringId gcFile_, gcName_;

    AsyncioLayout asyncio_;
    std::unique_ptr<TaskGraphReader> tasks_; // set when --async-aware reads tasks
    std::vector<AsyncTask> taskList_;
    FrameWalker::Prefetch asyncPrefetch_;
    int64_t nextAsyncioLookNs_ = 0;
    std::string asyncioRejected_; // why its asyncio cannot be read: no longer looked for

    std::unique_ptr<ThreadNameWatcher> names_; // set by init() unless names are off
};

} // namespace gilscope::remote
