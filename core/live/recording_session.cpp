#include "core/live/recording_session.h"

#include "core/remote/live_stack_source.h"

namespace gilscope {
namespace {

GeckoOptions geckoOptions(uint64_t intervalUs) {
    GeckoOptions options;
    options.intervalUs = intervalUs;
    return options;
}

} // namespace

Result<std::unique_ptr<RecordingSession>> RecordingSession::start(int pid,
                                                                  const RecordingOptions& options) {
    auto source = openLiveProcess(pid, options.read);
    if (!source) return source.error();
    std::unique_ptr<RecordingSession> session(
        new RecordingSession(std::move(source).value(), options));
    session->sampler_->start();
    return session;
}

RecordingSession::RecordingSession(std::unique_ptr<StackSource> source,
                                   const RecordingOptions& options)
    : source_(std::move(source)), collector_(geckoOptions(options.intervalUs)),
      timeline_(options.timeline), pid_(source_->pid()) {
    tee_.add(&collector_);
    tee_.add(&timeline_);
    SamplerOptions samplerOptions;
    samplerOptions.intervalUs = options.intervalUs;
    samplerOptions.read = options.read;
    sampler_ = std::make_unique<Sampler>(*source_, tee_, samplerOptions);
}

RecordingSession::~RecordingSession() {
    // The sampler's destructor stops and joins before the sinks and source go away.
    sampler_.reset();
}

std::string RecordingSession::pythonVersion() const {
    uint8_t major = 0, minor = 0, micro = 0;
    source_->pythonVersion(major, minor, micro);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(micro);
}

void RecordingSession::requestStop() {
    sampler_->requestStop();
}

bool RecordingSession::running() const {
    return !finished_ && sampler_->running();
}

StopReason RecordingSession::finish() {
    if (finished_) return stopReason_;
    sampler_->requestStop();
    stopReason_ = sampler_->wait();
    finished_ = true;
    return stopReason_;
}

SamplerStats RecordingSession::stats() const {
    return sampler_->stats();
}

std::string RecordingSession::failure() const {
    return sampler_->failure();
}

} // namespace gilscope
