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
    return make(
        StackPipeline::open(pid, readOptionsFor(options), readPathFor(options), options.intervalUs),
        options);
}

Result<std::unique_ptr<RecordingSession>>
RecordingSession::fromSource(std::unique_ptr<StackSource> source, const SessionOptions& options) {
    return make(StackPipeline::over(std::move(source), readPathFor(options), options.intervalUs),
                options);
}

Result<std::unique_ptr<RecordingSession>> RecordingSession::make(Result<StackPipeline> pipeline,
                                                                 const SessionOptions& options) {
    if (!pipeline) return pipeline.error(); // before the sinks make their files
    std::unique_ptr<RecordingSession> session(new RecordingSession(options));
    SamplerOptions samplerOptions;
    samplerOptions.intervalUs = options.intervalUs;
    samplerOptions.durationSec = options.durationSec;
    samplerOptions.read = readOptionsFor(options);     // the header's mode comes from these
    samplerOptions.countersEveryMs = kCountersEveryMs; // the counter tracks
    auto built = PipelineRecording::build(
        std::move(pipeline),
        {&session->collector_, session->profile_.get(), &session->copy_, &session->timeline_},
        samplerOptions);
    if (!built) return built.error();
    session->built_ = std::move(*built);
    session->source_ = &session->built_->reader();
    session->pid_ = session->source_->pid();
    return session;
}

ReadOptions RecordingSession::readOptionsFor(const SessionOptions& options) {
    ReadOptions read = options.read;
    read.mode = options.mode;
    read.reportSkipped = true;                                      // for the live timeline
    if (options.mode == ProfilingMode::Wall) read.cpuState = false; // as CPython's wall mode
    return read;
}

void RecordingSession::startSampling() {
    if (!built_->recording().finished()) built_->recording().start();
}

RecordingSession::RecordingSession(const SessionOptions& options)
    : collector_(geckoOptions(options.intervalUs)), timeline_(options.timeline),
      mode_(options.mode) {
}

RecordingSession::~RecordingSession() {
    built_.reset(); // the sampler stops and joins before the sinks go away
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
    built_->recording().mark(std::move(text));
}

void RecordingSession::requestStop() {
    built_->recording().requestStop();
}

bool RecordingSession::running() const {
    return built_->recording().running();
}

StopReason RecordingSession::finish() {
    if (built_->recording().finished()) return built_->recording().finish();
    const StopReason reason = built_->recording().finish();
    if (!built_->recording().started())
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
    return built_->recording().stats();
}

} // namespace gilscope
