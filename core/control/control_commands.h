#pragma once

#include "core/common/error.h"

#include <functional>
#include <string>
#include <string_view>

namespace gilscope::control {

// What the control socket's commands act on: the recording's sampling switch and its end.
struct ControlTarget {
    std::function<void(bool)> setEnabled;
    std::function<bool()> enabled;
    std::function<void()> quit; // end the recording as Ctrl-C does: the output is written
    std::function<void(std::string)> mark; // a named instant (gilscope's own command)
    // Every thread now, as `gilscope dump -a --locals --json` prints it, on one line (an
    // error says why there is none), of the process `pid` names ("snapshot PID"; empty:
    // the one recorded, where there is one). gilscope's own command.
    std::function<Result<std::string>(std::string_view pid)> snapshot;
    // Writes the output so far, whole, while the recording goes on; says how many samples
    // it holds ("samples=N"). gilscope's own command.
    std::function<Result<std::string>()> flush;
};

// The longest snapshot reply sent (a larger one is refused): what a client must accept.
inline constexpr size_t kMaxSnapshotBytes = 16u << 20;

struct Reply {
    std::string line;        // without its newline
    bool closeAfter = false; // quit: the connection closes once the reply is sent
};

// One command line (already stripped), answered exactly as CPython's profiler answers
// on its control socket (Lib/profiling/sampling/_control.py): "enable", "disable",
// "ping" -> "ok"; "status" -> "ok enabled=True|False"; "quit" -> "ok", then the
// recording ends; anything else -> "err unknown_command". gilscope adds "mark TEXT" -> "ok"
// (a named instant in the Gecko export; "err mark_needs_text" without one) and "snapshot"
// -> "ok " and the JSON of every thread's stack and variables, or "err snapshot_failed: WHY";
// "flush" -> "ok samples=N" once the output so far is written, or "err flush_failed: WHY".
// One of gilscope's commands that the target has no handler for -> "err not_supported".
Reply answer(std::string_view command, const ControlTarget& target);

} // namespace gilscope::control
