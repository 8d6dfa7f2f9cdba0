#pragma once

// One recording of one target, the way both the command line (`attach`, `run`) and the
// window (Record, Launch script) make it: a sampler thread over a source into the
// recording's sink, a held target released only once the first tick was taken, a stop
// on request, at the deadline, when the target exits or when a sink fails, and one
// account of how it ended. What the samples become (a file, the window's views) is
// the caller's sink; this class owns only the recording's life.

#include "core/sample/sample_sink.h"
#include "core/sample/stack_source.h"
#include "core/sampler/sampler.h"

#include <functional>
#include <memory>
#include <string>

namespace gilscope {

class CounterPoller;

// How a recording ended, in one place for every front end.
struct RecordingEnd {
    StopReason reason = StopReason::NotStopped;
    // A sink's failure ("recording stopped: No space left on device"), or empty.
    std::string failure;
    // When the target ended: the reader's words (it exited, or exec'd another program),
    // or empty when the front end saw the target go before the reader did.
    std::string targetWhy;

    // One sentence for the user: "the target process exited", "process 12 replaced its
    // program (exec of /bin/sh)", "the chosen duration was reached", or the failure.
    // Empty for a plain stop on request.
    std::string describe() const;
};

class Recording {
public:
    // source and sink must outlive the recording; the sink is fed on the sampler thread.
    Recording(StackSource& source, SampleSink& sink, const SamplerOptions& options);
    // Same, on an injected clock (tests). clock must outlive the recording.
    Recording(StackSource& source, SampleSink& sink, const SamplerOptions& options,
              SamplerClock& clock);
    ~Recording(); // stops and joins the sampler

    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

    // Starts the sampler thread, and the counters' poller (SamplerOptions::countersEveryMs).
    // Once.
    void start();
    bool started() const { return started_; }
    // True once the first tick was taken (read or failed), or the sampler has ended:
    // from then on a held target may run its first line.
    bool firstTickTaken() const;
    // Blocks, in 1 ms naps, until firstTickTaken(). For the command line; the window
    // polls firstTickTaken() from its event loop instead.
    void waitForFirstTick() const;

    void requestStop(); // async-signal-safe
    // Sampling on or off while the recording goes on (Sampler::setEnabled).
    void setEnabled(bool enabled);
    bool enabled() const;
    void mark(std::string text);                        // Sampler::mark
    bool runBetweenTicks(std::function<void()> errand); // Sampler::runBetweenTicks
    // The front end saw the target go (a launched child was reaped) before the reader
    // did: stop, and count it as the target's exit.
    void targetGone();
    bool running() const; // false once stopped or ended on its own
    // Joins the sampler (quick once it has stopped or was asked to). Idempotent.
    StopReason finish();
    bool finished() const { return finished_; }

    SamplerStats stats() const;
    RecordingSummary summary() const; // after finish()
    RecordingEnd end() const;         // after finish()
    ErrorKind failureKind() const;    // of end().failure
    // Anything to keep: at least one thread's stack reached the sink.
    bool recordedAnything() const { return stats().threadSamples > 0; }

private:
    std::unique_ptr<Sampler> sampler_;
    StackSource* source_ = nullptr; // outlives the recording; its probe reads GC counts
    int pid_ = 0;
    uint32_t countersEveryMs_ = 0;
    std::unique_ptr<CounterPoller> counters_; // after sampler_: stopped before it goes
    bool started_ = false;
    bool finished_ = false;
    bool targetGone_ = false;
    StopReason reason_ = StopReason::NotStopped;
};

} // namespace gilscope
