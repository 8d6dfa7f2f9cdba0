#pragma once

// Records one target from an opened StackSource to the chosen output: runs the
// sampler, handles Ctrl-C and --realtime-stats, writes the file and prints CPython's
// summary. Shared by `attach` and `run`.

#include "app/commands/record_options.h"
#include "core/sample/stack_source.h"
#include "core/sampler/sampler.h"

#include <functional>

namespace gilscope::cli {

struct RecordHooks {
    std::function<void()> afterStart; // run: release the gated target
    std::function<bool()> targetGone; // run: polled ~20 times a second; true once the child exited
    int subprocessRoot = 0; // --subprocesses: whose descendants (default: the source's pid)
};

struct RecordResult {
    StopReason reason = StopReason::NotStopped;
    bool interrupted = false; // Ctrl-C
    bool aborted = false;     // second Ctrl-C: nothing written
    int exitCode = 0;         // 0, or the error's exit code when the output failed
};

RecordResult recordToOutput(StackSource& source, const RecordOptions& options,
                            const RecordHooks& hooks = {});

} // namespace gilscope::cli
