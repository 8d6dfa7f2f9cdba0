// --async-aware: a sample of a live process as asyncio's tasks, not its threads (3.14+).
#include "core/remote/async_stacks.h"
#include "core/remote/live_process_reader.h"
#include "core/remote/struct_view.h"

#include <chrono>

namespace gilscope::remote {

Status LiveProcessReader::loadAsyncio() {
    const uint64_t section = locateAsyncioDebug(*door_, loc_);
    if (section == 0) return {};
    std::vector<uint8_t> bytes(kAsyncioDebugSize), table(kMaxDebugOffsetsSize);
    const size_t got = mem_.readPartial(loc_.runtimeAddr, table.data(), table.size());
    table.resize(got);
    if (!mem_.read(section, bytes.data(), bytes.size()))
        return makeError(ErrorKind::PermissionDenied, "cannot read asyncio's debug offsets");
    auto layout = asyncioLayout(table, bytes, layout_.minor, layout_.frSize);
    if (!layout) return layout.error();
    asyncio_ = *layout;
    tasks_ = std::make_unique<TaskGraphReader>(mem_, layout_, asyncio_, walker_);
    return {};
}

Status LiveProcessReader::initAsyncio() {
    return loadAsyncio();
}

ReadOutcome LiveProcessReader::readAsync(std::vector<ThreadStack>& out, size_t& count) {
    if (!tasks_ && !asyncioRejected_.empty()) return fail(asyncioRejected_);
    if (!tasks_) {
        // Python 3.14 builds _asyncio as an extension: its section appears with `import
        // asyncio`. Looking reads /proc/PID/maps and ELF headers: at most every 50 ms.
        const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count();
        if (now >= nextAsyncioLookNs_) {
            nextAsyncioLookNs_ = now + 50'000'000;
            if (Status s = loadAsyncio(); !s) {
                // A layout refused stays refused: report why, and stop rescanning the maps.
                if (s.error().kind == ErrorKind::UnsupportedVersion)
                    asyncioRejected_ = s.error().message;
                return fail(s.error().message);
            }
        }
        if (!tasks_) return fail("the target has not loaded asyncio (no AsyncioDebug section yet)");
    }
    InterpState interp;
    if (!readInterp(mainInterp_, interp)) return fail("cannot read the interpreter state");
    if (layout_.inCodeGeneration != kAbsent) {
        const uint64_t gen = interpWin_.u64(layout_.inCodeGeneration);
        if (gen != codeGeneration_) codes_.clear(); // code objects were freed: cache is stale
        codeGeneration_ = gen;
    }
    // The thread-sampling path predicts which thread state it reads next; not from here.
    tstateValid_ = false;
    predictedTstate_ = 0;
    taskList_.clear();
    tasks_->beginSample();
    const bool all = options_.asyncMode == AsyncMode::All;
    uint64_t t = interp.threadsHead;
    for (size_t i = 0; t && i < kMaxThreads; ++i) {
        if (!walker_.budget().firstVisit(t)) return fail("the thread list loops (torn read)");
        if (!plausibleAddress(t) || !mem_.read(t, tstate_.data(), tstate_.size()))
            return fail("cannot read a thread state");
        const uint64_t tid = StructView(tstate_).field<uint64_t>(layout_.tsNativeThreadId);
        const uint64_t next = StructView(tstate_).field<uint64_t>(layout_.tsNext);
        if (all && !tasks_->readTaskList(t + asyncio_.tsTasksHead, tid, taskList_))
            return fail(tasks_->why());
        if (!all && !readRunningTask(t, tid)) return fail(why_);
        t = next;
    }
    // Tasks whose thread has gone wait in the interpreter's own list.
    if (all && !tasks_->readTaskList(mainInterp_ + asyncio_.interpTasksHead, 0, taskList_))
        return fail(tasks_->why());
    // As read(): reads by pid count only if the process attached to outlived them.
    if (!provenOurs() && exited()) return ReadOutcome::ProcessEnded;
    buildTaskStacks(taskList_, registry_, out, count);
    return ReadOutcome::Ok;
}

bool LiveProcessReader::readRunningTask(uint64_t tstateAddr, uint64_t threadId) {
    uint64_t loop = 0, task = 0;
    if (!mem_.readValue(tstateAddr + asyncio_.tsRunningLoop, loop) ||
        !mem_.readValue(tstateAddr + asyncio_.tsRunningTask, task)) {
        why_ = "cannot read a thread's running task";
        return false;
    }
    if (loop == 0 || task == 0) return true; // no event loop, or it runs no task right now
    const size_t first = taskList_.size();
    if (!tasks_->readTask(task, threadId, false, taskList_.emplace_back())) {
        why_ = tasks_->why();
        return false;
    }
    if (taskList_[first].coro == 0) {
        why_ = "the running task has no coroutine";
        return false;
    }
    // The running task's chain is its thread's frames, from the leaf up to the task's own
    // coroutine frame (CPython: parse_async_frame_chain).
    walker_.setStopFrame(taskList_[first].coro + asyncio_.genIframe);
    asyncPrefetch_.tstateAddr = tstateAddr;
    const bool walked = walker_.walk(tstate_, taskList_[first].frames, asyncPrefetch_);
    walker_.setStopFrame(0);
    if (!walked) {
        why_ = walker_.why();
        return false;
    }
    if (!tasks_->readWaiters(first, taskList_)) {
        why_ = tasks_->why();
        return false;
    }
    return true;
}

} // namespace gilscope::remote
