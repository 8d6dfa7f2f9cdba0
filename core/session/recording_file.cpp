#include "core/session/recording_file.h"

#include "core/analysis/state_filter_sink.h"
#include "core/sample/tee_sink.h"

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
    : path_(std::move(path)), reader_(std::move(reader)),
      collector_(geckoOptionsFor(reader_.info())) {
}

Result<uint64_t> RecordingFile::load(const ProgressCallback& progress, const CancelToken* cancel) {
    if (attempted_)
        return makeError(ErrorKind::Internal, "this recording was already loaded; open it again");
    attempted_ = true;
    TeeSink tee;
    tee.add(&collector_);
    tee.add(&timeline_);
    tee.add(profile_.get());
    auto replayed = reader_.replay(tee, progress, cancel);
    if (replayed) loaded_ = true;
    return replayed;
}

Status RecordingFile::exportTo(const std::filesystem::path& dest, const ProgressCallback& progress,
                               const CancelToken* cancel, StateFilter state) {
    if (!loaded_) return makeError(ErrorKind::Internal, "load the recording before exporting it");
    if (state == StateFilter::All && !collector_.exported())
        return collector_.exportTo(dest, progress, cancel);
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
