#include "core/sample/capture_rules.h"

namespace gilscope {

std::vector<AsyncConflict> asyncConflicts(const CaptureChoice& c) {
    std::vector<AsyncConflict> out;
    if (c.asyncMode == AsyncMode::Off) return out;
    // CPython's _validate_args: async-aware stacks come from tasks, not thread states.
    if (c.native) out.push_back(AsyncConflict::Native);
    if (!c.gcFrames) out.push_back(AsyncConflict::NoGc);
    if (c.binaryOutput) out.push_back(AsyncConflict::Binary);
    if (c.mode != ProfilingMode::Wall) out.push_back(AsyncConflict::Mode);
    if (c.allThreads) out.push_back(AsyncConflict::AllThreads);
    return out;
}

std::string asyncConflictMessage(const std::vector<std::string>& options) {
    std::string list;
    for (const std::string& o : options)
        list += (list.empty() ? "" : ", ") + o;
    return "Options " + list +
           " are incompatible with --async-aware. Async-aware profiling uses task-based stack "
           "reconstruction.";
}

std::string versionRefusal(bool native, AsyncMode asyncMode, int minor,
                           const std::string& versionText) {
    if (native && minor < 11)
        return "--native needs Python 3.11 or newer: Python 3." + std::to_string(minor) +
               " does not mark where C code calls back into Python";
    if (asyncMode != AsyncMode::Off && minor < 14)
        return "--async-aware needs Python 3.14 or newer: Python " + versionText +
               " does not publish asyncio's debug offsets (the AsyncioDebug section), so its "
               "tasks cannot be read from outside";
    return {};
}

} // namespace gilscope
