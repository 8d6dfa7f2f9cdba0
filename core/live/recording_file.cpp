#include "core/live/recording_file.h"
#include "core/util/python_version.h"

#include "core/analysis/state_filter_sink.h"
#include "core/sample/tee_sink.h"
#include "core/sample/thread_status.h"

#include <algorithm>
#include <cstdio>

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
    // GIL contention keeps the holders' samples at the times some thread waited: a
    // first pass finds those times.
    std::vector<uint64_t> contended;
    if (state == StateFilter::GilContention) {
        ContendedTimesSink times;
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

namespace {

std::string modeName(std::optional<int> mode) {
    if (!mode) return "unknown";
    switch (static_cast<ProfilingMode>(*mode)) {
    case ProfilingMode::Wall:
        return "wall";
    case ProfilingMode::Cpu:
        return "cpu";
    case ProfilingMode::Gil:
        return "gil";
    case ProfilingMode::All:
        return "all";
    case ProfilingMode::Exception:
        return "exception";
    default:
        return "unknown (" + std::to_string(*mode) + ")";
    }
}

std::string fixed(double value, const char* suffix) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f%s", value, suffix);
    return buf;
}

std::string grouped(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace

std::vector<std::pair<std::string, std::string>>
describeTachInfo(const TachInfo& info, const std::vector<uint64_t>& perThreadSamples) {
    std::vector<std::pair<std::string, std::string>> rows;
    rows.emplace_back("Python",
                      PythonVersion{info.pythonMajor, info.pythonMinor, info.pythonMicro}.str());
    rows.emplace_back("Format version", std::to_string(info.version));
    // Per thread and in total: the header counts every thread's samples, while the
    // sample rate and duration are per thread (ticks).
    std::string perThread;
    if (!perThreadSamples.empty()) {
        const auto [lo, hi] = std::minmax_element(perThreadSamples.begin(), perThreadSamples.end());
        perThread = *lo == *hi ? grouped(*lo) : grouped(*lo) + " – " + grouped(*hi);
    } else if (info.threadCount) {
        perThread = "≈ " + grouped(info.sampleCount / info.threadCount);
    }
    if (!perThread.empty()) rows.emplace_back("Samples per thread", perThread);
    rows.emplace_back("Thread-samples, total", grouped(info.sampleCount));
    rows.emplace_back("Threads", std::to_string(info.threadCount));
    rows.emplace_back("Sample interval", std::to_string(info.sampleIntervalUs) + " µs");
    rows.emplace_back("Mode", modeName(info.mode));
    rows.emplace_back("Compression", info.compression == 1   ? "zstd"
                                     : info.compression == 0 ? "none"
                                                             : std::to_string(info.compression));
    rows.emplace_back("Strings / frames",
                      std::to_string(info.stringCount) + " / " + std::to_string(info.frameCount));
    rows.emplace_back("File size", std::to_string(info.fileSize) + " bytes");
    if (info.stats) {
        rows.emplace_back("Duration", fixed(info.stats->durationSec, " s"));
        rows.emplace_back("Sample rate (per thread)", fixed(info.stats->sampleRate, " Hz"));
        if (info.stats->errorRatePct)
            rows.emplace_back("Error rate", fixed(*info.stats->errorRatePct, " %"));
        if (info.stats->missedPct)
            rows.emplace_back("Missed samples", fixed(*info.stats->missedPct, " %"));
    }
    return rows;
}

std::vector<std::pair<std::string, std::string>> RecordingFile::describe() const {
    std::vector<uint64_t> perThread;
    for (const ThreadTimeline& t : timeline_.snapshot().threads)
        perThread.push_back(t.samples);
    return describeTachInfo(info(), perThread);
}

} // namespace gilscope
