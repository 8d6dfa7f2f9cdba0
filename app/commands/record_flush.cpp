#include "app/commands/record_flush.h"

#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"

namespace gilscope::cli {

namespace fs = std::filesystem;

Result<uint64_t> flushOutput(Recording& recording, RecordingOutput& output, RecordingCopy* copy,
                             const RecordOptions& options, const fs::path& destination,
                             const StackSource& source) {
    if (destination.empty() || output.toStdout()) // a pstats table, or -o -
        return makeError(ErrorKind::BadArguments,
                         "the output goes to standard output: there is no file to flush");
    TachWriter* binary = output.binaryWriter();
    if (!binary && !copy)
        return makeError(ErrorKind::Internal, "this recording keeps no .bin to flush from");

    Result<fs::path> checkpoint = makeError(ErrorKind::Internal, "no checkpoint was taken");
    uint64_t samples = 0;
    const bool ran = recording.runBetweenTicks([&] {
        if (binary) {
            const Status s = binary->checkpoint(destination);
            checkpoint = s ? Result<fs::path>(destination) : Result<fs::path>(s.error());
            samples = binary->totalSamples();
        } else {
            checkpoint = copy->checkpoint();
        }
    });
    if (!ran) return makeError(ErrorKind::Cancelled, "the recording has ended");
    if (!checkpoint) return checkpoint.error();
    if (binary) return samples;

    // Another format: made from the checkpoint, as `gilscope replay` makes it.
    auto reader = TachReader::open(*checkpoint);
    if (!reader) return reader.error();
    RecordingFacts facts = recordingFacts(options, source);
    facts.startTimeMs = static_cast<double>(reader->info().startTimeUs) / 1000.0;
    auto made = createRecordingOutput(options, facts, destination);
    if (!made) return made.error();
    auto replayed = reader->replay((*made)->sink(), {}, nullptr);
    if (!replayed) {
        (*made)->discard();
        return replayed.error();
    }
    const CancelToken never;
    if (Status s = (*made)->write(never); !s) return s.error();
    return *replayed;
}

} // namespace gilscope::cli
