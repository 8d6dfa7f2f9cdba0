#pragma once

// What an output is to the record commands and `replay`: a sink, and at the end a file.
// Each format is one row of output_formats.cpp, which makes it.
// The output file (or its temporary file) is made when the output is created, before
// sampling (or replaying) starts, so a path that cannot be written fails at once.

#include "app/commands/record_options.h"
#include "core/common/error.h"
#include "core/pprof/pprof_sink.h"
#include "core/sample/sample_sink.h"
#include "core/sample/stack_source.h"
#include "core/util/cancel.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace gilscope {
class TachWriter;
}

namespace gilscope::cli {

class RecordingOutput {
public:
    virtual ~RecordingOutput() = default;
    virtual SampleSink& sink() = 0;
    // Writes the destination whole, or leaves nothing (and any old file untouched)
    // when it fails or `cancel` fires.
    virtual Status write(const CancelToken& cancel) = 0;
    // The line printed after a successful write, as CPython words it.
    virtual std::string writtenMessage() const = 0;
    // Drops the output: nothing is written and an existing file stays as it was.
    virtual void discard() = 0;
    // The output goes to our standard output: messages must go to stderr.
    virtual bool toStdout() const = 0;
    // The `.bin` writer, when the output is one (a flush checkpoints it in place).
    virtual TachWriter* binaryWriter() { return nullptr; }
};

// What a recording says about itself that some formats write down: the record options
// say it while recording, the .bin header when `replay` converts one.
struct RecordingFacts {
    uint64_t intervalUs = 1000;            // Gecko's fallback meta.interval
    std::optional<double> startTimeMs;     // Gecko's meta.startTime; none: now
    bool opcodes = false;                  // Gecko's opcode markers
    std::optional<int> mode;               // ProfilingMode: JSONL's meta, the pstats table's hint
    std::optional<int> captureFeatures;    // CaptureFeature bits: what a diff's baseline must match
    bool liveTarget = false;               // pprof's thread names come from /proc
    std::optional<int64_t> endWallClockNs; // pprof's clock for a replayed .bin: when it ended
    // A live target: the heatmap reads its sources through its door. Null: a replay.
    std::shared_ptr<const target::AttachedProcess> process;
    // What the HTML pages say was recorded: a replayed .bin's path (live: its command).
    std::string target;
};

// What a pprof sink is told by these facts (the file output's and the push's).
pprof::PprofSinkOptions pprofSinkOptions(const RecordingFacts& facts);

Result<std::unique_ptr<RecordingOutput>>
createRecordingOutput(const OutputOptions& options, const RecordingFacts& facts,
                      const std::filesystem::path& destination);
// What the record options say about a recording of `pid`.
RecordingFacts recordingFacts(const RecordOptions& options, const StackSource& source);
// The record commands': the facts come from the options.
Result<std::unique_ptr<RecordingOutput>>
createRecordingOutput(const RecordOptions& options, const std::filesystem::path& destination,
                      const StackSource& source);

} // namespace gilscope::cli
