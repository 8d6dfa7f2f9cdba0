#include "core/sampler/recording.h"

#include "core/counters/counter_poller.h"

#include <ctime>

namespace gilscope {

std::string RecordingEnd::describe() const {
    if (!failure.empty()) return failure;
    switch (reason) {
    case StopReason::TargetExited:
        return targetWhy.empty() ? "the target process exited" : targetWhy;
    case StopReason::Duration:
        return "the chosen duration was reached";
    case StopReason::SinkFailed:
        return "an output failed";
    case StopReason::NotStopped:
    case StopReason::Requested:
        break;
    }
    return {};
}

Recording::Recording(StackSource& source, SampleSink& sink, const SamplerOptions& options)
    : sampler_(std::make_unique<Sampler>(source, sink, options)), source_(&source),
      pid_(source.pid()), countersEveryMs_(options.group ? 0 : options.countersEveryMs) {
}

Recording::Recording(StackSource& source, SampleSink& sink, const SamplerOptions& options,
                     SamplerClock& clock)
    : sampler_(std::make_unique<Sampler>(source, sink, options, clock)), source_(&source),
      pid_(source.pid()), countersEveryMs_(options.group ? 0 : options.countersEveryMs) {
}

Recording::~Recording() {
    counters_.reset(); // it hands readings to the sampler: stop it first
}

void Recording::start() {
    if (started_) return;
    started_ = true;
    sampler_->start();
    if (countersEveryMs_ == 0) return;
    // A process /proc does not show (another namespace) records without counters.
    if (auto reader = ProcCounterReader::open(source_->process())) {
        Sampler* sampler = sampler_.get();
        counters_ = std::make_unique<CounterPoller>(
            std::move(*reader), source_->counterProbe(),
            std::chrono::milliseconds(countersEveryMs_),
            // Once the sampler ended (the duration, the target), nothing hands them on.
            [sampler](const ProcessCounters& c) {
                if (sampler->running()) sampler->addCounters(c);
            });
    }
}

bool Recording::firstTickTaken() const {
    const SamplerStats s = sampler_->stats();
    return !sampler_->running() || s.okTicks + s.errors + s.paused > 0;
}

void Recording::mark(std::string text) {
    sampler_->mark(std::move(text));
}

bool Recording::runBetweenTicks(std::function<void()> errand) {
    return sampler_->runBetweenTicks(std::move(errand));
}

void Recording::setEnabled(bool enabled) {
    sampler_->setEnabled(enabled);
}

bool Recording::enabled() const {
    return sampler_->enabled();
}

void Recording::waitForFirstTick() const {
    while (started_ && !firstTickTaken()) {
        timespec ts{0, 1000000L};
        nanosleep(&ts, nullptr);
    }
}

void Recording::requestStop() {
    sampler_->requestStop();
}

void Recording::targetGone() {
    targetGone_ = true;
    sampler_->requestStop();
}

bool Recording::running() const {
    return started_ && !finished_ && sampler_->running();
}

StopReason Recording::finish() {
    if (finished_) return reason_;
    if (counters_) counters_->stop(); // its last reading reaches the sink at the end
    sampler_->requestStop();
    reason_ = sampler_->wait();
    // Seen gone by the front end first: the reader never got to say why.
    if (targetGone_ && reason_ != StopReason::SinkFailed) reason_ = StopReason::TargetExited;
    finished_ = true;
    return reason_;
}

SamplerStats Recording::stats() const {
    return sampler_->stats();
}

RecordingSummary Recording::summary() const {
    return sampler_->summary();
}

RecordingEnd Recording::end() const {
    RecordingEnd end;
    end.reason = reason_;
    end.failure = sampler_->failure();
    if (reason_ == StopReason::TargetExited && !targetGone_) end.targetWhy = sampler_->endReason();
    return end;
}

ErrorKind Recording::failureKind() const {
    return sampler_->failureKind();
}

} // namespace gilscope
