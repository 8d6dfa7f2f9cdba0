#pragma once

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"

#include <filesystem>
#include <memory>
#include <string>

namespace gilscope {

// A recording's private `.bin` copy (TachWriter in a TempDir), kept beside whatever the
// recording is written to, so that a first export that fails or is cancelled loses
// nothing: the copy is rescued to where the user can find it (rescueRecording()). A copy
// that fails (its disk is full) never stops the recording: it only says why it is gone.
class RecordingCopy final : public SampleSink {
public:
    RecordingCopy(); // opens the copy; status() says why when it could not
    ~RecordingCopy() override;
    RecordingCopy(const RecordingCopy&) = delete;
    RecordingCopy& operator=(const RecordingCopy&) = delete;

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override;
    void finish(const RecordingSummary& summary) override;
    // The copy keeps the names beside it (the .bin has no place for them).
    void nameThread(uint64_t threadId, const std::string& name) override;
    void addMarker(uint64_t timestampUs, const std::string& text) override;
    void addCounters(const ProcessCounters& reading) override;
    // failed() stays false: a missing copy is no reason to stop a recording.

    // After the recording: completes the file. Idempotent.
    void finalize();
    // While recording, on the producing thread: the samples so far as a whole `.bin` in
    // the copy's own folder (TachWriter::checkpoint), replaced by the next one. Returns
    // its path.
    Result<std::filesystem::path> checkpoint();
    // The complete copy after finalize(), or empty (status() says why).
    const std::filesystem::path& path() const { return path_; }
    // Ok, or why there is no copy (its error keeps the kind: a full disk, a folder).
    const Status& status() const { return status_; }
    // rescueRecording() of the complete copy, or why there is none.
    Result<std::filesystem::path> rescue(const std::filesystem::path& destination) const;
    // Called when the recording never started: there is nothing to copy.
    void drop(std::string why);

private:
    TempDir dir_;
    std::unique_ptr<TachWriter> writer_;
    std::filesystem::path path_;
    Status status_;
    bool finalized_ = false;
};

// Keeps a finished recording's copy (`copy`) whose export to `destination` failed or was
// cancelled: as "NAME.rescued.bin" beside the destination, or, when that cannot be
// written either (the same full disk), in rescuedRecordingsDir(). Never replaces a file.
// Returns where it went.
Result<std::filesystem::path> rescueRecording(const std::filesystem::path& copy,
                                              const std::filesystem::path& destination);
// $XDG_CACHE_HOME/gilscope/rescued, or ~/.cache/gilscope/rescued.
std::filesystem::path rescuedRecordingsDir();
// The sentence that tells the user where the recording went and the `gilscope replay`
// command that finishes the job (formatFlag: "--gecko", "--collapsed", ...), or why
// it could not be kept.
std::string rescueNote(const Result<std::filesystem::path>& rescued, const char* formatFlag,
                       const std::filesystem::path& destination);

} // namespace gilscope
