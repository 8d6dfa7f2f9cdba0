#include "app/commands/recording_output.h"

#include "app/commands/output_formats.h"

namespace gilscope::cli {

namespace fs = std::filesystem;

pprof::PprofSinkOptions pprofSinkOptions(const RecordingFacts& facts) {
    pprof::PprofSinkOptions p;
    p.wall = !facts.mode || *facts.mode == static_cast<int>(ProfilingMode::Wall) ||
             *facts.mode == static_cast<int>(ProfilingMode::Unknown);
    p.wallClockEndNs = facts.endWallClockNs;
    return p;
}

Result<std::unique_ptr<RecordingOutput>> createRecordingOutput(const OutputOptions& options,
                                                               const RecordingFacts& facts,
                                                               const fs::path& destination) {
    return outputFormatRow(options.format).create(options, facts, destination);
}

RecordingFacts recordingFacts(const RecordOptions& options, const StackSource& source) {
    RecordingFacts facts;
    facts.intervalUs = options.intervalUs;
    facts.opcodes = options.opcodes;
    facts.mode = static_cast<int>(recordedMode(options.readOptions()));
    const ReadOptions read = options.readOptions(); // the bits the sampler will stamp
    facts.captureFeatures = int(
        (read.allThreads ? CaptureFeature::AllThreads : 0) | (read.gc ? CaptureFeature::Gc : 0) |
        (read.native ? CaptureFeature::Native : 0) | (read.opcodes ? CaptureFeature::Opcodes : 0));
    facts.liveTarget = true;
    facts.process = source.process();
    facts.target = "PID " + std::to_string(source.pid());
    return facts;
}

Result<std::unique_ptr<RecordingOutput>> createRecordingOutput(const RecordOptions& options,
                                                               const fs::path& destination,
                                                               const StackSource& source) {
    return createRecordingOutput(options, recordingFacts(options, source), destination);
}

} // namespace gilscope::cli
