#pragma once

#include "core/common/error.h"

#include <cstdint>
#include <span>

namespace gilscope::remote {

// Where asyncio keeps its tasks, for one CPython build (3.14+): the `_asyncio` module's
// AsyncioDebug section (_Py_AsyncioModuleDebugOffsets) and the fields of the target's
// _Py_DebugOffsets that walking tasks needs (generators, sets, ints, linked lists).
struct AsyncioLayout {
    // TaskObj
    uint64_t taskSize = 0, taskName = 0, taskAwaitedBy = 0, taskIsTask = 0, taskAwaitedByIsSet = 0,
             taskCoro = 0, taskNode = 0;
    // PyInterpreterState: the list of tasks whose thread has gone
    uint64_t interpTasksHead = 0;
    // _PyThreadStateImpl (larger than the PyThreadState the stack walker reads)
    uint64_t tsSize = 0, tsRunningLoop = 0, tsRunningTask = 0, tsTasksHead = 0;
    // PyGenObject / PyCoroObject and its embedded frame
    uint64_t genSize = 0, genIframe = 0, genFrameState = 0;
    int8_t frameCleared = 0;                      // FRAME_CLEARED: nothing left to show
    int8_t yieldFromFirst = 0, yieldFromLast = 0; // suspended in `await` / `yield from`
    uint64_t frStackpointer = 0;
    uint64_t awaitedSlot =
        0; // how far below the stack pointer a suspended `await` keeps its awaitable
    uint64_t tpFlags = 0;
    uint64_t setUsed = 0, setTable = 0, setMask = 0;
    uint64_t longTag = 0, longDigits = 0;
    uint64_t llistNext = 0;

    static constexpr uint8_t kOwnedByGenerator = 1;
    static constexpr uint64_t kLongSubclass = 1ull << 24, kUnicodeSubclass = 1ull << 28;
};

// The AsyncioDebug section's size: 13 64-bit fields.
inline constexpr size_t kAsyncioDebugSize = 13 * 8;

// `debugOffsets`: the target's _Py_DebugOffsets table; `section`: its AsyncioDebug
// section. Both come from the target; every offset is checked against its structure.
// `frSize`: the frame size of the PythonLayout already checked, whose frame offsets read
// the frame embedded in a coroutine (not the target's second copy of it).
Result<AsyncioLayout> asyncioLayout(std::span<const uint8_t> debugOffsets,
                                    std::span<const uint8_t> section, uint8_t minor,
                                    uint64_t frSize);

} // namespace gilscope::remote
