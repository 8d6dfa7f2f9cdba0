#pragma once

#include "core/remote/asyncio_layout.h"
#include "core/remote/frame_walker.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"
#include "core/remote/remote_objects.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gilscope::remote {

// One asyncio task as CPython's profiler reports it (its TaskInfo).
struct AsyncTask {
    uint64_t addr = 0;
    uint64_t threadId = 0; // native id of the thread whose list holds it (0: the interpreter's)
    std::string name;      // empty: not a Task (a Future awaiting); shown as "Task-<addr>"
    uint64_t coro = 0;     // its coroutine object (0: none)
    std::vector<FrameId> frames;   // its coroutine chain, leaf first
    std::vector<uint64_t> waiters; // the tasks awaiting it (awaited_by)
};

// Reads asyncio's tasks out of the target (3.14+), as CPython's _remote_debugging does:
// task lists, names, awaited_by sets and coroutine chains. Every list, set and chain is
// bounded and checked for loops; a read that fails or finds garbage fails the whole call
// (the caller then counts a failed sample, never a made-up stack). A sample (beginSample)
// reads each task once and at most SampleBudget::kMaxBytes in all (with its frames), whatever the
// target holds.
class TaskGraphReader {
public:
    static constexpr size_t kMaxTasks = 1 << 16;      // CPython's bound on a task list
    static constexpr size_t kMaxChain = 1024;         // coroutines awaiting one another
    static constexpr uint64_t kMaxSetSlots = 1 << 12; // an awaited_by set's table (64 KiB)

    TaskGraphReader(ProcessMemory& mem, const PythonLayout& layout, const AsyncioLayout& async,
                    FrameWalker& frames);

    // Starts a sample: refills the budget of tasks and the walkers' shared SampleBudget
    // (bytes, and the tasks and chunks seen).
    void beginSample();
    // --async-mode all: every task of the circular list whose head node is at `head`.
    bool readTaskList(uint64_t head, uint64_t threadId, std::vector<AsyncTask>& out);
    // One task: its name, its waiters and (withChain) its coroutine chain.
    bool readTask(uint64_t addr, uint64_t threadId, bool withChain, AsyncTask& out);
    // --async-mode running: appends every task that awaits out[first], transitively,
    // each once (awaited_by can form cycles in a torn or odd program).
    bool readWaiters(size_t first, std::vector<AsyncTask>& out);

    const std::string& why() const { return why_; }

private:
    bool fail(std::string why);
    bool readName(uint64_t nameObj, std::string& out);
    bool readChain(uint64_t coro, std::vector<FrameId>& out);
    bool readAwaitedBy(const std::vector<uint8_t>& task, std::vector<uint64_t>& out);
    bool readPointer(uint64_t addr, uint64_t& out);
    bool spend(size_t bytes); // fails once the sample's SampleBudget is spent

    ProcessMemory& mem_;
    const PythonLayout& layout_;
    const AsyncioLayout& async_;
    FrameWalker& frames_;
    RemoteObjects objects_;
    std::vector<uint8_t> task_, gen_, table_;
    size_t tasksLeft_ = kMaxTasks;
    std::string why_;
};

} // namespace gilscope::remote
