#pragma once

// The one place that turns an output format into a sink and, at the end, a file.
// Each format is a few lines in record_output.cpp. The output file (or its temporary
// file) is made when the output is created, before sampling starts, so a path that
// cannot be written fails at once instead of after the recording.

#include "app/commands/record_options.h"
#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/util/cancel.h"

#include <filesystem>
#include <memory>
#include <string>

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
};

Result<std::unique_ptr<RecordingOutput>>
createRecordingOutput(const RecordOptions& options, const std::filesystem::path& destination);

} // namespace gilscope::cli
