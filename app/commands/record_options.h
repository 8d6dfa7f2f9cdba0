#pragma once

// Options shared by `gilscope attach` and `gilscope run`, spelled as CPython's
// `python -m profiling.sampling` spells them.

#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <QCommandLineParser>
#include <QStringList>

#include <cstdint>
#include <filesystem>
#include <string>

namespace gilscope::cli {

enum class OutputFormat { Collapsed, Gecko, Binary, Pstats, Jsonl };

struct RecordOptions {
    uint64_t intervalUs = 1000;
    double durationSec = 0; // 0: until the target exits or Ctrl-C
    bool allThreads = false;
    bool opcodes = false;
    bool native = false; // --native: <native> frames (3.11+)
    bool realtimeStats = false;
    ProfilingMode mode = ProfilingMode::Wall; // --mode
    bool gcFrames = true;                     // --no-gc clears it
    bool blocking = false;                    // --blocking: stop the target for each sample
    OutputFormat format = OutputFormat::Collapsed;
    std::string compression = "auto";         // --binary only
    std::string output;                       // empty: {format}_{pid}.{ext}
    int realtimePriority = 0;                 // --rt-priority: SCHED_FIFO sampler thread
    size_t maxDepth = ReadOptions{}.maxDepth; // --max-depth: frames a stack keeps
    std::string sort = "nsamples";            // --pstats table: --sort, -l/--limit, --no-summary
    long limit = 15;
    bool summary = true;
    bool browser = false;      // --browser: open a --gecko profile in the profiler
    bool subprocesses = false; // --subprocesses: one child profiler per Python descendant
    AsyncMode asyncMode = AsyncMode::Off; // --async-aware with --async-mode (3.14+)

    ReadOptions readOptions() const;
};

// Adds -r, -d, -a, --mode, --opcodes, --realtime-stats, --max-depth, -o and the format flags.
void addRecordOptions(QCommandLineParser& parser);
// Reads and validates them after parser.process(); errors carry CPython's wording
// where CPython has one.
Result<RecordOptions> readRecordOptions(const QCommandLineParser& parser);

const char* formatName(OutputFormat f); // "collapsed", "gecko", "binary", "pstats", "jsonl"
// CPython's default: {format}_{pid}.{ext}; inside `output` when that is a directory.
// --pstats without -o prints to stdout: the path is then empty.
std::filesystem::path outputPath(const RecordOptions& options, int pid);

// Whether option `name` (without dashes) of a record command takes a value; used to
// find where `run`'s target starts in the raw arguments.
bool recordOptionTakesValue(const QString& name);

} // namespace gilscope::cli
