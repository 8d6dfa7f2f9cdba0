#pragma once

// Options shared by `gilscope attach` and `gilscope run`, spelled as CPython's
// `python -m profiling.sampling` spells them.

#include "app/commands/output_options.h"
#include "app/commands/push_options.h"
#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <QCommandLineParser>
#include <QStringList>

#include <cstdint>
#include <string>

namespace gilscope::cli {

// The output choice (format, -o, ...) is the part `replay` shares.
struct RecordOptions : OutputOptions {
    uint64_t intervalUs = 1000;
    double durationSec = 0; // 0: until the target exits or Ctrl-C
    bool allThreads = false;
    bool opcodes = false;
    bool native = false;          // --native: <native> frames (3.11+)
    bool nativeStacks = false;    // --native-stacks: the C frames themselves, among Python's
    bool nativeStacksAll = false; // --native-stacks=all: the eval loop and its plumbing too
    bool realtimeStats = false;
    ProfilingMode mode = ProfilingMode::Wall; // --mode
    bool gcFrames = true;                     // --no-gc clears it
    std::vector<LabelSource> labels;          // --label-from
    bool waitReasons = false;                 // --wait-reasons: <lock wait>, <sleep>... leaves
    bool blocking = false;                    // --blocking: stop the target for each sample
    int realtimePriority = 0;                 // --rt-priority: SCHED_FIFO sampler thread
    size_t maxDepth = ReadOptions{}.maxDepth; // --max-depth: frames a stack keeps
    bool browser = false;                     // --browser: open a --gecko profile in the profiler
    bool subprocesses = false; // --subprocesses: one child profiler per Python descendant
    AsyncMode asyncMode = AsyncMode::Off; // --async-aware with --async-mode (3.14+)
    PushOptions push;                     // --push and its companions
    bool localOutput = true;              // false: --push or --live alone, no file
    bool live = false;                    // --live: the terminal view (tui/)
    std::string control;                  // --control unix:PATH: the control socket
    bool startDisabled = false;           // --start-disabled: sampling off until `enable`

    ReadOptions readOptions() const;
};

// Adds recordOptions(): -r, -d, -a, --mode, --opcodes, --realtime-stats, --max-depth, -o and the
// format flags.
void addRecordOptions(QCommandLineParser& parser);

// --label-from [KEY=]NAME (repeatable): `attach`, `run` and the agent read labels alike.
QCommandLineOption labelFromOption();
Result<std::vector<LabelSource>> readLabelSources(const QCommandLineParser& parser);
// Reads and validates them once the command line is parsed; errors carry CPython's wording
// where CPython has one.
Result<RecordOptions> readRecordOptions(const QCommandLineParser& parser);

// The one table of the record options, in --help order.
const QList<QCommandLineOption>& recordOptions();
// Whether option `name` (without dashes) of `options` takes a value; `run` finds where
// its target starts in the raw arguments with it.
bool optionTakesValue(const QList<QCommandLineOption>& options, const QString& name);

} // namespace gilscope::cli
