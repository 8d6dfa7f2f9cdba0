#include "core/remote/task_graph.h"

#include <algorithm>

namespace gilscope::remote {

namespace {

// Object pointers on the value stack are _PyStackRefs (3.14+): the low bits are tags.
constexpr uint64_t kTagMask = ~uint64_t{7};

bool objectAddress(uint64_t a) {
    return plausibleAddress(a) && (a & 7) == 0;
}

} // namespace

TaskGraphReader::TaskGraphReader(ProcessMemory& mem, const PythonLayout& layout,
                                 const AsyncioLayout& async, FrameWalker& frames)
    : mem_(mem), layout_(layout), async_(async), frames_(frames), objects_(mem, layout) {
}

bool TaskGraphReader::fail(std::string why) {
    why_ = std::move(why);
    return false;
}

void TaskGraphReader::beginSample() {
    frames_.budget().begin();
    tasksLeft_ = kMaxTasks;
}

bool TaskGraphReader::spend(size_t bytes) {
    return frames_.budget().spend(bytes) || fail(SampleBudget::exhaustedMessage());
}

bool TaskGraphReader::readPointer(uint64_t addr, uint64_t& out) {
    return spend(sizeof out) && mem_.readValue(addr, out);
}

bool TaskGraphReader::readTaskList(uint64_t head, uint64_t threadId, std::vector<AsyncTask>& out) {
    uint64_t next = 0;
    if (!readPointer(head + async_.llistNext, next)) return fail("cannot read a task list");
    // seen_ spans the sample: a task in two lists is as torn as a list that loops.
    while (next != head) {
        if (!objectAddress(next)) return fail("invalid task list node (torn read)");
        if (!frames_.budget().firstVisit(next - async_.taskNode))
            return fail("task list loops (torn read)");
        AsyncTask& task = out.emplace_back();
        if (!readTask(next - async_.taskNode, threadId, true, task)) return false;
        if (!readPointer(next + async_.llistNext, next)) return fail("cannot read a task list");
    }
    return true;
}

bool TaskGraphReader::readTask(uint64_t addr, uint64_t threadId, bool withChain, AsyncTask& out) {
    out = AsyncTask{};
    out.addr = addr;
    out.threadId = threadId;
    if (tasksLeft_ == 0) return fail("more than 65536 asyncio tasks in one sample");
    --tasksLeft_;
    task_.resize(async_.taskSize);
    if (!spend(task_.size())) return false;
    if (!objectAddress(addr) || !mem_.read(addr, task_.data(), task_.size()))
        return fail("cannot read a task");
    // Only a Task has a name and a coroutine; a Future that awaits (gather's) has neither.
    if (StructView(task_).field<uint8_t>(async_.taskIsTask) != 0) {
        if (!readName(StructView(task_).field<uint64_t>(async_.taskName) & kTagMask, out.name))
            return false;
        out.coro = StructView(task_).field<uint64_t>(async_.taskCoro) & kTagMask;
        if (withChain && out.coro && !readChain(out.coro, out.frames)) return false;
    }
    return readAwaitedBy(task_, out.waiters);
}

bool TaskGraphReader::readName(uint64_t nameObj, std::string& out) {
    uint64_t type = 0, flags = 0;
    if (!objectAddress(nameObj) || !readPointer(nameObj + layout_.obType, type) ||
        !objectAddress(type) || !readPointer(type + async_.tpFlags, flags))
        return fail("cannot read a task's name");
    if (flags & AsyncioLayout::kLongSubclass) {
        // Unnamed tasks keep their counter as an int until asked: CPython shows
        // "Task-<n>". Digits are 30 bits; a counter fits in three.
        uint64_t tag = 0;
        uint32_t digits[3] = {};
        if (!readPointer(nameObj + async_.longTag, tag)) return fail("cannot read a task's name");
        const uint64_t count = tag >> 3;
        if (count > 3 || !spend(count * 4) ||
            !mem_.read(nameObj + async_.longDigits, digits, count * 4))
            return fail("task name is not a small int (torn read)");
        uint64_t value = 0;
        for (uint64_t i = count; i-- > 0;)
            value = (value << 30) | (digits[i] & 0x3fffffff);
        out = std::string((tag & 3) == 2 ? "Task--" : "Task-") + std::to_string(value);
        return true;
    }
    if (!(flags & AsyncioLayout::kUnicodeSubclass)) return fail("task name is neither str nor int");
    if (!spend(512)) return false; // readString: its header and at most 255 characters
    auto s = objects_.readString(nameObj, 255);
    if (!s) return fail("cannot read a task's name");
    out = std::move(*s);
    return true;
}

bool TaskGraphReader::readAwaitedBy(const std::vector<uint8_t>& task, std::vector<uint64_t>& out) {
    const uint64_t awaitedBy = StructView(task).field<uint64_t>(async_.taskAwaitedBy) & kTagMask;
    if (awaitedBy == 0) return true;
    if (!StructView(task).field<uint8_t>(async_.taskAwaitedByIsSet)) {
        out.push_back(awaitedBy); // one waiter, held directly
        return true;
    }
    int64_t fields[3] = {}; // used, table, mask, read one by one: offsets come from the target
    if (!spend(sizeof fields)) return false;
    if (!mem_.readValue(awaitedBy + async_.setUsed, fields[0]) ||
        !mem_.readValue(awaitedBy + async_.setTable, fields[1]) ||
        !mem_.readValue(awaitedBy + async_.setMask, fields[2]))
        return fail("cannot read a task's awaited_by set");
    const int64_t used = fields[0], mask = fields[2];
    const uint64_t table = static_cast<uint64_t>(fields[1]);
    if (mask < 0 || uint64_t(mask) >= kMaxSetSlots || used < 0 || used > mask + 1 ||
        !objectAddress(table))
        return fail("invalid awaited_by set (torn read)");
    // setentry {key, hash}: empty slots have no key, deleted ones the dummy key and hash -1.
    table_.resize(static_cast<size_t>(mask + 1) * 16);
    if (!spend(table_.size())) return false;
    if (!mem_.read(table, table_.data(), table_.size()))
        return fail("cannot read a task's awaited_by set");
    int64_t found = 0;
    for (size_t i = 0; i < table_.size() && found < used; i += 16) {
        const uint64_t key = StructView(table_).field<uint64_t>(i);
        if (key == 0 || StructView(table_).field<int64_t>(i + 8) == -1) continue;
        out.push_back(key);
        ++found;
    }
    return true;
}

bool TaskGraphReader::readChain(uint64_t coro, std::vector<FrameId>& out) {
    const size_t first = out.size();
    // describe() reads the frame with the offsets checked against the PythonLayout's
    // frame size: that whole frame must lie inside the generator read.
    if (layout_.frSize < 8 || async_.genIframe > async_.genSize ||
        layout_.frSize > async_.genSize - async_.genIframe ||
        async_.frStackpointer > layout_.frSize - 8)
        return fail("a coroutine's frame lies outside the coroutine");
    gen_.resize(async_.genSize);
    uint64_t type = 0;
    for (size_t depth = 0; coro != 0; ++depth) {
        if (depth >= kMaxChain) return fail("coroutine chain loops (torn read)");
        if (!spend(gen_.size() + 512)) return false; // the coroutine and its code, if not cached
        if (!objectAddress(coro) || !mem_.read(coro, gen_.data(), gen_.size()))
            return fail("cannot read a coroutine");
        const int8_t state = StructView(gen_).field<int8_t>(async_.genFrameState);
        if (state == async_.frameCleared) break;
        type = StructView(gen_).field<uint64_t>(layout_.obType);
        const StructView frame = StructView(gen_).sub(async_.genIframe, layout_.frSize);
        FrameId id;
        bool python = false;
        if (!frames_.describe(frame, id, python)) return fail("cannot read a coroutine's code");
        if (!python) break;
        out.push_back(id);
        if (state < async_.yieldFromFirst || state > async_.yieldFromLast) break;
        // Suspended in `await`: the awaitable sits at the top of its stack (3.14) or just
        // below (3.15). Only
        // a coroutine of the same type continues the chain (an iterator ends it).
        if (frame.field<uint8_t>(layout_.frOwner) != AsyncioLayout::kOwnedByGenerator)
            return fail("a suspended coroutine does not own its frame (torn read)");
        uint64_t awaited = 0, awaitedType = 0;
        const uint64_t sp = frame.field<uint64_t>(async_.frStackpointer);
        if (sp == 0) break;
        if (!readPointer(sp - async_.awaitedSlot, awaited))
            return fail("cannot read an awaited object");
        awaited &= kTagMask;
        if (awaited == 0) break;
        if (!objectAddress(awaited) || !readPointer(awaited + layout_.obType, awaitedType))
            return fail("cannot read an awaited object");
        if (awaitedType != type) break;
        coro = awaited;
    }
    std::reverse(out.begin() + static_cast<ptrdiff_t>(first), out.end());
    return true;
}

bool TaskGraphReader::readWaiters(size_t first, std::vector<AsyncTask>& out) {
    // Waiters already read this sample (for another thread's running task) are not read again.
    frames_.budget().firstVisit(out[first].addr);
    for (size_t i = first; i < out.size(); ++i) {
        const std::vector<uint64_t> waiters = out[i].waiters;
        const uint64_t threadId = out[i].threadId;
        for (uint64_t w : waiters) {
            if (!frames_.budget().firstVisit(w)) continue; // a cycle, or a task reached twice
            AsyncTask& task = out.emplace_back();
            if (!readTask(w, threadId, true, task)) return false;
        }
    }
    return true;
}

} // namespace gilscope::remote
