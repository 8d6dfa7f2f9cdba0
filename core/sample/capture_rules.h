#pragma once

// Which capture options go together, and which CPython versions can give them: one home
// for the CLI (attach/run) and the GUI's recording options, in CPython's own words.

#include "core/sample/stack_source.h"

#include <string>
#include <vector>

namespace gilscope {

// What a recording was asked for, before a front end turns it into ReadOptions.
struct CaptureChoice {
    AsyncMode asyncMode = AsyncMode::Off;
    bool native = false;
    bool gcFrames = true;
    bool binaryOutput = false; // CPython's --binary output (the CLI's; the GUI's copy is private)
    ProfilingMode mode = ProfilingMode::Wall;
    bool allThreads = false;
};

// Options CPython refuses together with --async-aware, in the order it names them.
enum class AsyncConflict { Native, NoGc, Binary, Mode, AllThreads };
std::vector<AsyncConflict> asyncConflicts(const CaptureChoice& choice);
// CPython's message naming the conflicting options, e.g. {"--native", "--all-threads"}.
std::string asyncConflictMessage(const std::vector<std::string>& options);

// Why a target of Python 3.<minor> cannot be read with these options, or empty.
// versionText names the version in the message ("3.13.2", or "3.13" when the micro
// version is not known).
std::string versionRefusal(bool native, AsyncMode asyncMode, int minor,
                           const std::string& versionText);

} // namespace gilscope
