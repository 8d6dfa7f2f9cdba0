#include "core/session/recording_session.h"

#include "core/session/recording_file.h"
#include "core/tach/save_bin_copy.h"

namespace gilscope {
namespace {

// C frames too (the window's "C stacks"): read through perf events, never paused.
ReadPath readPathFor(const SessionOptions& options) {
    ReadPath path;
    path.nativeStacks = options.read.nativeStacks;
    return path;
}

GeckoOptions geckoOptions(uint64_t intervalUs) {
    GeckoOptions options;
    options.intervalUs = intervalUs;
    return options;
}

} // namespace

Result<std::unique_ptr<RecordingSession>> RecordingSession::open(int pid,
                                                                 const SessionOptions& options) {
    auto pipeline =
        StackPipeline::open(pid, readOptionsFor(options), readPathFor(options), options.intervalUs);
    if (!pipeline) return pipeline.error();
    return std::unique_ptr<RecordingSession>(new RecordingSession(std::move(*pipeline), options));
}

Result<std::unique_ptr<RecordingSession>>
RecordingSession::fromSource(std::unique_ptr<StackSource> source, const SessionOptions& options) {
    auto pipeline =
        StackPipeline::over(std::move(source), readPathFor(options), options.intervalUs);
    if (!pipeline) return pipeline.error();
    return std::unique_ptr<RecordingSession>(new RecordingSession(std::move(*pipeline), options));
}

ReadOptions RecordingSession::readOptionsFor(const SessionOptions& options) {
    ReadOptions read = options.read;
    read.mode = options.mode;
    read.reportSkipped = true;                                      // for the live timeline
    if (options.mode == ProfilingMode::Wall) read.cpuState = false; // as CPython's wall mode
    return read;
}

void RecordingSession::startSampling() {
    if (!recording_->finished()) recording_->start();
}

RecordingSession::RecordingSession(StackPipeline pipeline, const SessionOptions& options)
    : pipeline_(std::move(pipeline)), source_(&pipeline_.reader()),
      collector_(geckoOptions(options.intervalUs)), timeline_(options.timeline),
      pid_(source_->pid()), mode_(options.mode) {
    tee_.add(&collector_);
    tee_.add(profile_.get());
    tee_.add(&copy_);
    tee_.add(&timeline_);
    SamplerOptions samplerOptions;
    samplerOptions.intervalUs = options.intervalUs;
    samplerOptions.durationSec = options.durationSec;
    samplerOptions.read = readOptionsFor(options);     // the header's mode comes from these
    samplerOptions.countersEveryMs = kCountersEveryMs; // the counter tracks
    recording_ = std::make_unique<Recording>(*source_, tee_, samplerOptions);
}

RecordingSession::~RecordingSession() {
    // The sampler stops and joins before the sinks and source go away.
    recording_.reset();
}

std::string RecordingSession::pythonVersion() const {
    return source_->pythonVersion().str();
}

bool RecordingSession::freeThreaded() const {
    return source_->freeThreaded();
}

int RecordingSession::pythonMinor() const {
    return source_->pythonVersion().major == 3 ? source_->pythonVersion().minor : 0;
}

void RecordingSession::mark(std::string text) {
    recording_->mark(std::move(text));
}

void RecordingSession::requestStop() {
    recording_->requestStop();
}

bool RecordingSession::running() const {
    return recording_->running();
}

StopReason RecordingSession::finish() {
    if (recording_->finished()) return recording_->finish();
    const StopReason reason = recording_->finish();
    if (!recording_->started())
        copy_.drop("the recording never started");
    else
        copy_.finalize();
    return reason;
}

bool RecordingSession::canExport() const {
    return finished() && (!collector_.exported() || hasBinCopy());
}

Status RecordingSession::exportTo(const std::filesystem::path& dest,
                                  const ProgressCallback& progress, const CancelToken* cancel,
                                  StateFilter state) {
    if (!finished())
        return makeError(ErrorKind::Internal, "stop the recording before exporting it");
    if (state == StateFilter::All && !collector_.exported()) {
        Status exported = collector_.exportTo(dest, progress, cancel);
        if (exported || exported.error().kind == ErrorKind::Cancelled || rescued_) return exported;
        // The first export failed (full disk): keep the recording where the user sees it.
        rescued_ = true;
        Error e = exported.error();
        e.message += "; " + rescueNote(copy_.rescue(dest), "--gecko", dest) +
                     " (or export it again from here once there is room)";
        return e;
    }
    if (!hasBinCopy())
        return makeError(ErrorKind::Io,
                         std::string(state == StateFilter::All
                                         ? "this recording was already exported and its copy is "
                                         : "a filtered export replays the recording's copy, which "
                                           "is ") +
                             "missing (" + copy_.status().error().message + "); record again");
    return RecordingFile::exportFile(copy_.path(), dest, state, progress, cancel);
}

Status RecordingSession::saveBinCopyTo(const std::filesystem::path& dest,
                                       const ProgressCallback& progress,
                                       const CancelToken* cancel) const {
    if (!finished()) return makeError(ErrorKind::Internal, "stop the recording before saving it");
    if (!hasBinCopy())
        return makeError(ErrorKind::Io, "this recording has no .bin copy (" +
                                            copy_.status().error().message + ")");
    return saveBinCopy(copy_.path(), dest, progress, cancel);
}

SamplerStats RecordingSession::stats() const {
    return recording_->stats();
}

} // namespace gilscope
