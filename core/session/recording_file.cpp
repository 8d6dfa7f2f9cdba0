#include "core/session/recording_file.h"

#include "core/analysis/state_filter_sink.h"
#include "core/sample/tee_sink.h"

#include <optional>
#include <thread>

namespace gilscope {
namespace {

GeckoOptions geckoOptionsFor(const TachInfo& info) {
    GeckoOptions options;
    if (info.sampleIntervalUs) options.intervalUs = info.sampleIntervalUs;
    // The recording's own start, so exporting the same file twice gives the same bytes.
    options.startTimeMs = static_cast<double>(info.startTimeUs) / 1000.0;
    return options;
}

} // namespace

Result<std::unique_ptr<RecordingFile>> RecordingFile::open(const std::filesystem::path& path) {
    auto reader = TachReader::open(path);
    if (!reader) return reader.error();
    return std::unique_ptr<RecordingFile>(new RecordingFile(path, std::move(reader).value()));
}

RecordingFile::RecordingFile(std::filesystem::path path, TachReader reader)
    : path_(std::move(path)), reader_(std::move(reader)) {
}

Result<uint64_t> RecordingFile::load(const ProgressCallback& progress, const CancelToken* cancel,
                                     const std::function<void()>& tracksReady) {
    if (attempted_)
        return makeError(ErrorKind::Internal, "this recording was already loaded; open it again");
    attempted_ = true;
    // The model's replay (the long one) on a thread of its own, the tracks' on this one.
    auto second = reader_.reopen();
    if (!second) return second.error();
    CancelToken stopModel(cancel); // the caller's cancel, or the tracks' replay failing
    std::optional<Result<uint64_t>> modelDone;
    std::thread model([&] {
        try {
            modelDone.emplace(second->replay(*profile_, progress, &stopModel));
        } catch (const std::exception& e) { // no exception may leave a thread
            modelDone.emplace(makeError(ErrorKind::Internal, e.what()));
        }
    });
    struct Join {
        std::thread& thread;
        CancelToken& stop;
        ~Join() {
            stop.cancel(); // only reached early when the tracks' side threw
            if (thread.joinable()) thread.join();
        }
    } join{model, stopModel};
    auto tracks = reader_.replay(timeline_, {}, cancel);
    if (!tracks)
        stopModel.cancel();
    else if (tracksReady)
        tracksReady();
    model.join();
    if (!tracks) return tracks.error();
    if (!*modelDone) return modelDone->error();
    loaded_ = true;
    return *modelDone;
}

Status RecordingFile::exportTo(const std::filesystem::path& dest, const ProgressCallback& progress,
                               const CancelToken* cancel, StateFilter state) {
    if (!loaded_) return makeError(ErrorKind::Internal, "load the recording before exporting it");
    return exportFile(path_, dest, state, progress, cancel);
}

Status RecordingFile::exportFile(const std::filesystem::path& bin,
                                 const std::filesystem::path& dest, StateFilter state,
                                 const ProgressCallback& progress, const CancelToken* cancel) {
    auto reader = TachReader::open(bin);
    if (!reader) return reader.error();
    // The contention views keep who ran at the times some thread waited: a first pass
    // finds those times.
    std::vector<uint64_t> contended;
    if (isContention(state)) {
        ContendedTimesSink times(state);
        auto scanned = reader->replay(times, {}, cancel);
        if (!scanned) return scanned.error();
        contended = times.takeTimes();
    }
    GeckoCollector collector(geckoOptionsFor(reader->info()));
    StateFilterSink filter(state, collector, &contended);
    SampleSink& sink = state == StateFilter::All ? static_cast<SampleSink&>(collector) : filter;
    auto replayed = reader->replay(sink, {}, cancel);
    if (!replayed) return replayed.error();
    return collector.exportTo(dest, progress, cancel);
}

std::vector<std::pair<std::string, std::string>> RecordingFile::describe() const {
    TachDescribeOptions options;
    options.groupDigits = true;
    options.perThreadSamples.emplace();
    for (const ThreadTimeline& t : timeline_.snapshot().threads)
        options.perThreadSamples->push_back(t.samples);
    std::vector<std::pair<std::string, std::string>> rows;
    for (TachField& f : describeTachInfo(info(), options))
        rows.emplace_back(std::move(f.label), std::move(f.value));
    return rows;
}

} // namespace gilscope
