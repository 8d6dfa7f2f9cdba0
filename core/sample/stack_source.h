#pragma once

#include "core/sample/frame_registry.h"
#include "core/sample/process_counters.h"
#include "core/sample/sample_label.h"
#include "core/sample/thread_status.h"
#include "core/sample/torn_reads.h"
#include "core/util/python_version.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gilscope::target {
class AttachedProcess;
}

namespace gilscope {

// --native-stacks: where a run of Python frames that one eval-loop call runs ends, leaf
// first: `end` indexes ThreadStack::frames just past the run; `address` is the run's
// entry frame, which 3.12+ keep on the C stack inside that eval call's frame (0 on 3.11);
// `previous` is that entry frame's previous frame (the Python frame whose C call entered
// this eval loop), stored `previousOffset` bytes into the entry frame.
struct EvalEntry {
    uint32_t end = 0;
    uint64_t address = 0;
    uint64_t previous = 0;
    uint32_t previousOffset = 0;
};

// dump --locals: one variable of a frame, as read from the target's memory without running
// any of its code. `value` is a short, Python-like text ("[1, 2, 3, …]", "'abc'",
// "<Order at 0x7f…>", "<unreadable>").
struct FrameVariable {
    enum class Kind : uint8_t { Argument, Local, Cell, Free };
    std::string name;
    Kind kind = Kind::Local;
    std::string type; // the object's type name (tp_name); empty when unreadable
    std::string value;
    int64_t length = -1; // str, bytes, list, tuple, dict, set: how many items (-1: not one)
};

// The variables of one frame, arguments first as the code declares them; unbound ones
// (not yet assigned) are left out. `error` says why a frame's variables could not be read.
struct FrameLocals {
    std::vector<FrameVariable> variables;
    std::string error;
};

// One thread's stack as read at one instant.
struct ThreadStack {
    uint64_t threadId = 0;       // native thread id (OS TID)
    uint64_t pythonThreadId = 0; // tstate->thread_id (pthread_t)
    uint32_t interpreterId = 0;
    uint32_t status = 0;                // ThreadStatus bits
    std::vector<FrameId> frames;        // leaf first
    bool skipped = false;               // --mode skipped it: status only, no stack (reportSkipped)
    std::vector<EvalEntry> evalEntries; // 3.11+ with ReadOptions::nativeStacks only
    // ReadOptions::locals only: one entry per frame (aligned with `frames`), empty for
    // synthetic frames (<GC>, a wait leaf, <native>, <truncated: N frames>).
    std::vector<FrameLocals> locals;
};

// A thread's name: Python's (threading.Thread.name) where threading made the thread, else
// the OS's (/proc comm) where it differs from the process's; no entry: known by its id.
struct ThreadName {
    uint64_t threadId = 0;
    std::string name;
};

// One check that found a read torn, and how often it fired.
struct TornReason {
    std::string why;
    uint64_t count = 0;
};

enum class ReadOutcome {
    Ok,
    Error,        // torn or failed read: counted, not reported one by one
    ProcessEnded, // the target has exited
};

// CPython's --async-aware: stacks rebuilt from asyncio tasks (3.14+) instead of threads.
// Running: the task each thread runs now and the tasks awaiting it; All: every task.
enum class AsyncMode { Off, Running, All };

struct ReadOptions {
    bool allThreads = false;   // false: the main thread of the main interpreter only
    bool opcodes = false;      // fill FrameInfo::opcode
    bool gc = true;            // synthetic <GC> frame while the collector runs
    bool native = false;       // CPython's --native: <native> where C code called Python (3.11+)
    bool nativeStacks = false; // --native-stacks: fill ThreadStack::evalEntries (3.11+)
    bool locals = false;       // dump --locals: fill ThreadStack::locals (never while recording)
    bool cpuState = true;      // probe ON_CPU (else the UNKNOWN bit is set, as CPython's wall mode)
    // With cpuState: a thread off CPU gets a leaf pseudo-frame saying why it waits
    // ("<lock wait>", "<read TCP 10.0.0.5:5432>", "<sleep>"). The reason itself rides in
    // the status word whenever cpuState is on (WaitReasonBits).
    bool waitFrames = false;
    // --label-from: each thread's labels, read from its current contextvars.Context, as
    // root pseudo-frames "<label KEY=VALUE>" (sample_label.h). Not with asyncMode.
    std::vector<LabelSource> labels = {};
    // Deepest stack kept whole (CPython's MAX_FRAME_CHAIN_DEPTH); a deeper one keeps its
    // leaf side and root frames around a synthetic "<truncated: N frames>" frame.
    size_t maxDepth = 1024 + 512;
    // CPython's --mode. Cpu, Gil and Exception read only the threads on CPU, holding the
    // GIL or with an active exception (the others are skipped before their stack is
    // walked); Cpu probes ON_CPU whatever cpuState says. Wall and All read every thread.
    ProfilingMode mode = ProfilingMode::Wall;
    // Also hand on the threads the mode skips, with their status and `skipped` set (no
    // frames), so a live view can draw every thread's state (the GUI's timeline).
    bool reportSkipped = false;
    AsyncMode asyncMode = AsyncMode::Off;
    // Read thread names (ThreadName) on a background thread, about once a second and when
    // a new thread appears (StackSource::takeThreadNames); never on the sampling path.
    bool threadNames = true;
    int64_t threadNameRefreshMs = 1000; // when no new thread appeared
    // A process none of whose threads has been on a CPU since the last read is not read
    // again: that sample stands, with no thread on a CPU (remote::StillProcess, exact).
    // Each sample then looks at every thread (a perf event's page, else a /proc read), and a
    // read probes every thread, so it pays where processes sleep most of the time (the host
    // agent). Not with nativeStacks or asyncMode.
    bool stillProcesses = false;
    // Where stillProcesses learns that a thread was put on a CPU: a perf event's page where
    // the kernel allows one, else /proc's schedstat (false: schedstat only; for tests).
    bool stillByPerf = true;
};

// The mode a recording made with these options is, as CPython stamps it in the .bin
// header: the filtering mode, else All when CPU state is probed, else Wall.
inline ProfilingMode recordedMode(const ReadOptions& o) {
    if (o.mode == ProfilingMode::Cpu || o.mode == ProfilingMode::Gil ||
        o.mode == ProfilingMode::Exception)
        return o.mode;
    return o.cpuState ? ProfilingMode::All : ProfilingMode::Wall;
}

// Something that can read a target's stacks, once per call. The sampler drives it;
// a live process reader implements it, and tests can implement it too.
class StackSource {
public:
    virtual ~StackSource() = default;

    // Reads the selected threads' stacks. Fills out[0 .. count) and reuses the
    // storage of out's elements across calls (never shrinks out).
    virtual ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) = 0;

    // Interns the frames this source produces. Lives as long as the source.
    virtual FrameRegistry& registry() = 0;

    virtual int pid() const = 0;
    // Python version of the target, e.g. 3.13.0.
    virtual PythonVersion pythonVersion() const = 0;
    // A free-threaded build (python3.13t): no GIL, so no status carries GIL bits.
    virtual bool freeThreaded() const { return false; }
    // Why the last read failed (for --realtime-stats and logs); empty if it did not.
    virtual std::string why() const { return {}; }

    // The sampler's thread, after each read: the names that appeared or changed since the
    // last call (the first call starts their refresh, off this thread). Cheap when none did.
    virtual bool takeThreadNames(std::vector<ThreadName>& changed) {
        (void)changed;
        return false;
    }
    // Every thread's name, read now on the caller's thread (`dump`).
    virtual std::vector<ThreadName> threadNamesNow() { return {}; }
    // The sampler's tick interval, before its first read: a torn read is read again within
    // a quarter of it.
    virtual void setTickInterval(uint64_t intervalUs) { (void)intervalUs; }
    // What the reads so far tore, and how they ended (zeros: the source cannot tell).
    virtual TornReads tornReads() const { return {}; }
    // Wait reasons asked of the kernel so far, and how many it could not tell.
    virtual WaitTally waitTally() const { return {}; }
    // The checks that found reads torn, most frequent first (diagnosis: --realtime-stats).
    virtual std::vector<TornReason> tornReasons() const { return {}; }
    // Where _PyRuntime lies in the target (0: not known): --native-stacks finds the
    // interpreter's own module by it, when its eval loop has no symbol.
    virtual uint64_t runtimeAddress() const { return 0; }
    // Reads the interpreter's own counters (its GC counts) for the counters' poller, on the
    // poller's thread; null where this source cannot locate them.
    virtual std::unique_ptr<CounterProbe> counterProbe() { return nullptr; }
    // The door to the live process this source reads (its files are read through it);
    // null for a source that reads no live process.
    virtual std::shared_ptr<const target::AttachedProcess> process() const { return nullptr; }
};

// A source that reads through another (--blocking, --native-stacks): all but read() is the
// inner source's, and why() too unless the wrapper failed on its own.
class StackSourceWrapper : public StackSource {
public:
    explicit StackSourceWrapper(StackSource& inner) : inner_(inner) {}
    FrameRegistry& registry() override { return inner_.registry(); }
    int pid() const override { return inner_.pid(); }
    PythonVersion pythonVersion() const override { return inner_.pythonVersion(); }
    bool freeThreaded() const override { return inner_.freeThreaded(); }
    WaitTally waitTally() const override { return inner_.waitTally(); }
    std::string why() const override { return why_.empty() ? inner_.why() : why_; }
    bool takeThreadNames(std::vector<ThreadName>& changed) override {
        return inner_.takeThreadNames(changed);
    }
    std::vector<ThreadName> threadNamesNow() override { return inner_.threadNamesNow(); }
    uint64_t runtimeAddress() const override { return inner_.runtimeAddress(); }
    std::unique_ptr<CounterProbe> counterProbe() override { return inner_.counterProbe(); }
    std::shared_ptr<const target::AttachedProcess> process() const override {
        return inner_.process();
    }
    void setTickInterval(uint64_t intervalUs) override { inner_.setTickInterval(intervalUs); }
    TornReads tornReads() const override { return inner_.tornReads(); }
    std::vector<TornReason> tornReasons() const override { return inner_.tornReasons(); }

protected:
    StackSource& inner_;
    std::string why_; // the wrapper's own failure of the last read, if any
};

} // namespace gilscope
