#pragma once

#include "core/common/error.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"

#include <cstdint>
#include <string>

namespace gilscope::target {
class AttachedProcess;
}

namespace gilscope::remote {

// Where CPython's runtime lives in a process, found from its maps and the ELF file that
// holds it (libpython or the executable), read through its door (the mapping itself, or
// the file in its root as it may read it) so targets in containers and chroots work.
struct RuntimeLocation {
    std::string elfPath;    // as the target sees it (from maps)
    std::string executable; // /proc/PID/exe target, for display
    uint64_t bias = 0;
    uint64_t runtimeAddr = 0;  // _PyRuntime
    uint64_t codeTypeAddr = 0; // PyCode_Type, 0 if unknown
    uint64_t noneAddr = 0;     // _Py_NoneStruct, 0 if unknown
    uint32_t versionHex = 0;   // from Py_Version (3.11+) or the file; 0 if not known yet
    bool microKnown = false;   // versionHex holds the real micro (3.13.0 has micro 0)
    int minorFromName = -1;    // "libpython3.9.so" -> 9
    uint64_t bssAddr = 0, bssSize = 0;
};

// Errors: ProcessNotFound, PermissionDenied (maps unreadable), NotPython.
Result<RuntimeLocation> locateRuntime(const target::AttachedProcess& door);

// The AsyncioDebug section (3.14+), in the file that holds _PyRuntime when _asyncio is
// built in, else in the mapped _asyncio extension (there once the program imported
// asyncio). 0 when neither has it.
uint64_t locateAsyncioDebug(const target::AttachedProcess& door, const RuntimeLocation& loc);

// Completes the version for 3.8-3.10 (no Py_Version) by finding Py_GetVersion()'s text
// in the target's .bss. Needs memory access. Leaves versionHex untouched on failure.
void refineVersionFromMemory(RuntimeLocation& loc, RemoteMemory& mem);

// The layout to read this runtime with: built-in tables for 3.8-3.12, the target's own
// _Py_DebugOffsets for 3.13+.
Result<PythonLayout> resolveLayout(const RuntimeLocation& loc, RemoteMemory& mem);

} // namespace gilscope::remote
