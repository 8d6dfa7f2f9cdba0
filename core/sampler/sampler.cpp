// The sampler's public face: start its thread (or join a group), stop, wait, and the
// figures other threads read. One tick is in sampler_tick.cpp.
#include "core/sampler/sampler.h"

#include "core/sample/thread_status.h"
#include "core/sampler/sampler_group.h"
#include "core/sampler/sampler_impl.h"
#include "core/target/attached_process.h"

#include <algorithm>
#include <limits>

namespace gilscope {

uint64_t endOfRecordingUs(uint64_t startUs, double durationSec) {
    constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();
    // NaN, <= 0 and anything that would overflow the clock mean "no end".
    if (!(durationSec > 0)) return kForever;
    const double us = durationSec * 1e6;
    if (!(us < static_cast<double>(kForever - startUs))) return kForever;
    return startUs + static_cast<uint64_t>(us);
}

Sampler::Sampler(StackSource& source, SampleSink& sink, SamplerOptions options)
    : Sampler(source, sink, std::move(options), systemSamplerClock()) {
}

Sampler::Sampler(StackSource& source, SampleSink& sink, SamplerOptions options, SamplerClock& clock)
    : impl_(std::make_unique<Impl>(source, sink, std::move(options), clock)) {
    impl_->enabled.store(impl_->options.startEnabled, std::memory_order_relaxed);
}

Sampler::~Sampler() {
    if (!impl_->started) return;
    requestStop();
    wait();
}

void Sampler::start() {
    Impl& d = *impl_;
    if (d.started) return;
    d.started = true;

    RecordingInfo info;
    info.pid = d.source.pid();
    info.sampleIntervalUs = d.options.intervalUs;
    info.startTimeUs = d.clock.nowUs();
    info.mode = static_cast<int>(recordedMode(d.options.read));
    uint32_t features = 0;
    if (d.options.read.allThreads) features |= CaptureFeature::AllThreads;
    if (d.options.read.gc) features |= CaptureFeature::Gc;
    if (d.options.read.native) features |= CaptureFeature::Native;
    if (d.options.read.opcodes) features |= CaptureFeature::Opcodes;
    info.captureFeatures = static_cast<int>(features);
    const PythonVersion version = d.source.pythonVersion();
    info.pythonMajor = version.major;
    info.pythonMinor = version.minor;
    info.pythonMicro = version.micro;
    info.freeThreaded = d.source.freeThreaded();
    if (const auto door = d.source.process()) info.cpus = door->allowedCpus();
    d.source.setTickInterval(d.options.intervalUs);
    d.sink.begin(d.source.registry(), info);

    const uint64_t startUs = info.startTimeUs;
    RawSamplerStats initial;
    initial.startUs = initial.lastTickUs = startUs;
    initial.running = 1;
    d.publisher.publish(initial); // so stats() says "running" from the moment start() returns
    d.isRunning.store(true, std::memory_order_release);
    if (d.options.group) {
        d.begin(startUs);
        d.options.group->add(&d);
    } else {
        d.thread = std::thread([&d, startUs] { d.run(startUs); });
    }
}

void Sampler::mark(std::string text) {
    impl_->errands.mark(impl_->clock.nowUs(), std::move(text));
}

void Sampler::addCounters(ProcessCounters reading) {
    reading.timeUs = impl_->clock.nowUs();
    impl_->errands.counters(reading);
}

bool Sampler::runBetweenTicks(std::function<void()> errand) {
    Impl& d = *impl_;
    if (!d.started) return false;
    return d.errands.run(std::move(errand));
}

void Sampler::setEnabled(bool on) {
    impl_->enabled.store(on, std::memory_order_relaxed);
}

bool Sampler::enabled() const {
    return impl_->enabled.load(std::memory_order_relaxed);
}

void Sampler::requestStop() {
    impl_->stopRequested.store(true, std::memory_order_relaxed);
}

StopReason Sampler::wait() {
    Impl& d = *impl_;
    if (!d.started) return StopReason::NotStopped;
    if (d.thread.joinable()) {
        d.thread.join();
    } else {
        std::unique_lock lock(d.endMutex); // the group ends it within one of its ticks
        d.endCv.wait(lock, [&d] { return d.ended; });
    }
    if (!d.finished) {
        d.finished = true;
        d.errands.handOn(d.sink); // marked after the last tick (the sampler thread has ended)
        d.errands.close();
        d.sink.finish(toRecordingSummary(d.finalStats));
    }
    return d.reason;
}

bool Sampler::running() const {
    return impl_->isRunning.load(std::memory_order_acquire);
}

SamplerStats Sampler::stats() const {
    return toSamplerStats(impl_->publisher.read(), impl_->options.intervalUs);
}

RecordingSummary Sampler::summary() const {
    return toRecordingSummary(impl_->finalStats);
}

std::string Sampler::endReason() const {
    return impl_->finished ? impl_->endReason : std::string();
}

std::string Sampler::failure() const {
    std::lock_guard lock(impl_->failureMutex);
    return impl_->failure;
}

ErrorKind Sampler::failureKind() const {
    std::lock_guard lock(impl_->failureMutex);
    return impl_->failureKind;
}

static_assert(std::atomic<bool>::is_always_lock_free, "requestStop must be async-signal-safe");

} // namespace gilscope
