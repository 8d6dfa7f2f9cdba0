#include "core/remote/asyncio_layout.h"

#include "core/remote/struct_view.h"

#include <iterator>
#include <string>

namespace gilscope::remote {

namespace {

// Positions inside _Py_DebugOffsets of the fields asyncio needs; 3.15 inserted fields
// before all of them, so each minor has its own list (measured on 3.14.10 and 3.15.2).
struct Positions {
    size_t frStackpointer, tpFlags, setSize, setUsed, setTable, setMask, longTag, longDigits,
        genSize, genIframe, genFrameState, llistNext;
};
constexpr Positions k314{0x128, 0x1b8, 0x1f0, 0x1f8, 0x200, 0x208,
                         0x240, 0x248, 0x298, 0x2a8, 0x2b0, 0x2b8};
constexpr Positions k315{0x168, 0x1f8, 0x250, 0x258, 0x260, 0x268,
                         0x2a0, 0x2a8, 0x318, 0x328, 0x330, 0x338};

uint64_t word(std::span<const uint8_t> t, size_t pos) {
    return StructView(t).field<uint64_t>(pos);
}

Error bad(const std::string& what) {
    return makeError(ErrorKind::UnsupportedVersion,
                     "the asyncio debug offsets of this Python do not look like the layout "
                     "gilscope knows (" +
                         what + "); --async-aware cannot read its tasks");
}

} // namespace

Result<AsyncioLayout> asyncioLayout(std::span<const uint8_t> debugOffsets,
                                    std::span<const uint8_t> section, uint8_t minor,
                                    uint64_t frSize) {
    const Positions* p = minor == 14 ? &k314 : minor == 15 ? &k315 : nullptr;
    if (!p)
        return makeError(ErrorKind::UnsupportedVersion,
                         "--async-aware reads asyncio tasks of Python 3.14 and 3.15 only");
    if (section.size() < kAsyncioDebugSize) return bad("the AsyncioDebug section is truncated");
    if (debugOffsets.size() < p->llistNext + 16) return bad("_Py_DebugOffsets is truncated");
    AsyncioLayout a;
    uint64_t s[13];
    for (size_t i = 0; i < std::size(s); ++i)
        s[i] = word(section, i * 8);
    a.taskSize = s[0];
    a.taskName = s[1];
    a.taskAwaitedBy = s[2];
    a.taskIsTask = s[3];
    a.taskAwaitedByIsSet = s[4];
    a.taskCoro = s[5];
    a.taskNode = s[6];
    const uint64_t interpSize = s[7];
    a.interpTasksHead = s[8];
    a.tsSize = s[9];
    a.tsRunningLoop = s[10];
    a.tsRunningTask = s[11];
    a.tsTasksHead = s[12];

    auto at = [&](size_t pos) { return word(debugOffsets, pos); };
    a.frStackpointer = at(p->frStackpointer);
    a.tpFlags = at(p->tpFlags);
    const uint64_t setSize = at(p->setSize);
    a.setUsed = at(p->setUsed);
    a.setTable = at(p->setTable);
    a.setMask = at(p->setMask);
    a.longTag = at(p->longTag);
    a.longDigits = at(p->longDigits);
    a.genSize = at(p->genSize);
    a.genIframe = at(p->genIframe);
    a.genFrameState = at(p->genFrameState);
    a.llistNext = at(p->llistNext);
    // PyFrameState: 3.14 counts from CREATED = -3 (YIELD_FROM -1, CLEARED 4); 3.15 from
    // CREATED = 0 (YIELD_FROM 2 and its LOCKED twin 3, EXECUTING 4, CLEARED 5).
    a.frameCleared = minor == 14 ? 4 : 5;
    a.yieldFromFirst = minor == 14 ? -1 : 2;
    a.yieldFromLast = minor == 14 ? -1 : 3;
    // 3.14 suspends `await` with the awaitable on top of the stack; 3.15 one slot lower
    // (CPython's own readers: stackpointer - 1 and - 2 slots).
    a.awaitedSlot = minor == 14 ? 8 : 16;

    // fits(): an offset near 2^64 that a hostile section gives must not wrap into range.
    auto within = [](uint64_t off, uint64_t size, uint64_t width) {
        return size > 0 && fits(off, width, size);
    };
    const struct {
        const char* name;
        bool ok;
    } checks[] = {
        {"task size", a.taskSize >= 64 && a.taskSize <= 4096},
        {"task.name", within(a.taskName, a.taskSize, 8)},
        {"task.awaited_by", within(a.taskAwaitedBy, a.taskSize, 8)},
        {"task.is_task", within(a.taskIsTask, a.taskSize, 1)},
        {"task.awaited_by_is_set", within(a.taskAwaitedByIsSet, a.taskSize, 1)},
        {"task.coro", within(a.taskCoro, a.taskSize, 8)},
        {"task.node", within(a.taskNode, a.taskSize, 16)},
        {"interpreter.asyncio_tasks_head", within(a.interpTasksHead, interpSize, 16)},
        {"thread size", a.tsSize <= 16384},
        {"thread.asyncio_running_loop", within(a.tsRunningLoop, a.tsSize, 8)},
        {"thread.asyncio_running_task", within(a.tsRunningTask, a.tsSize, 8)},
        {"thread.asyncio_tasks_head", within(a.tsTasksHead, a.tsSize, 16)},
        {"generator size", a.genSize <= 1024},
        {"generator.frame", within(a.genIframe, a.genSize, frSize)},
        {"generator.frame_state", within(a.genFrameState, a.genSize, 1)},
        {"frame.stackpointer", within(a.frStackpointer, frSize, 8)},
        {"type.tp_flags", a.tpFlags >= 16 && a.tpFlags <= 512},
        {"set.used", within(a.setUsed, setSize, 8)},
        {"set.table", within(a.setTable, setSize, 8)},
        {"set.mask", within(a.setMask, setSize, 8)},
        {"int digits", a.longTag == 16 && a.longDigits == 24},
        {"list node", a.llistNext <= 8},
    };
    for (const auto& c : checks)
        if (!c.ok) return bad(std::string(c.name) + " lies outside its structure");
    return a;
}

} // namespace gilscope::remote
