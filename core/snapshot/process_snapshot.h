#pragma once

#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gilscope {

// One look at every thread of a running process: what `gilscope dump` prints and the
// window's Snapshot shows (issue 39). Plain values, made on any thread.
struct SnapshotOptions {
    bool allThreads = true; // false: the main thread only, as CPython's dump
    bool locals = false;    // each frame's variables (FrameLocals)
    bool opcodes = false;
    bool blocking = false;     // every thread stopped while it is read (ptrace)
    bool tasks = false;        // --async-aware: asyncio's tasks as a tree too (3.14+)
    bool nativeStacks = false; // C frames among the Python ones (as --native-stacks records)
    size_t maxDepth = 1536;
};

struct FrameSnapshot {
    std::string function, file; // as the target names them (any bytes)
    int32_t line = 0, endLine = 0, column = -1, endColumn = -1;
    bool native = false;        // a C frame: `function` is its symbol, `file` its library
    int opcode = -1;            // --opcodes: the instruction, -1 none
    std::string opcodeName;     // its name in the target's own Python ("CALL_BUILTIN_O (CALL)")
    std::string source;         // the line's text, indentation stripped; empty: none
    bool sourceChanged = false; // the file changed after the program started
    std::string sourceNote;     // why a source file's line is not shown ("source not shown: ...")
    std::optional<FrameLocals> locals; // SnapshotOptions::locals only
};

struct ThreadSnapshot {
    uint64_t threadId = 0, pythonThreadId = 0;
    uint32_t interpreterId = 0;
    uint32_t status = 0;               // ThreadStatus bits, with the wait reason
    std::optional<std::string> name;   // threading's (or the system's) name
    std::string waiting;               // what it waits on ("lock wait"); empty: not waiting
    std::vector<FrameSnapshot> frames; // newest first; the wait itself is not a frame
};

// One asyncio task: its coroutine chain, and the tasks it awaits (each under the task that
// awaits it, as `python -m asyncio pstree` shows them).
struct TaskSnapshot {
    std::string name;                  // "Task-<addr>" for one without a name
    uint64_t threadId = 0;             // the thread whose list holds it (0: the interpreter's)
    bool running = false;              // the task its thread runs now
    std::vector<FrameSnapshot> frames; // its own coroutines, newest first
    std::vector<TaskSnapshot> awaits;
};

struct ProcessSnapshot {
    int pid = 0;
    std::string pythonVersion;
    bool freeThreaded = false;
    std::optional<std::string> executable, commandLine;
    std::vector<ThreadSnapshot> threads;
    std::vector<TaskSnapshot> tasks; // SnapshotOptions::tasks: the tasks no other awaits
};

// Reads the process once (a torn read is tried again, up to 50 times). Errors say what to
// do: ProcessNotFound, NotPython, PermissionDenied, ProcessEnded, Internal (no consistent
// read).
Result<ProcessSnapshot> takeSnapshot(int pid, const SnapshotOptions& options);
// The same through a door already open: a recording's (the control socket's `snapshot`, the
// window's), so that a pid taken since by another process is never read.
Result<ProcessSnapshot> takeSnapshot(const std::shared_ptr<const target::AttachedProcess>& door,
                                     const SnapshotOptions& options);

// A thread's status as words: "main_thread", "has_gil" ("attached" when free-threaded),
// "on_cpu", "idle", ...
std::vector<std::string> threadStatusNames(uint32_t status, bool freeThreaded);

} // namespace gilscope
