#pragma once

#include "core/common/error.h"
#include "core/sample/process_counters.h"
#include "core/sample/sample.h"

#include <string>

namespace gilscope {

// The one interface every consumer of samples implements: Gecko collector, .bin
// writer, collapsed writer, the GUI's live model. Producers (sampler, replay) call
// begin() once, addBatch() for each batch on the producing thread, then finish().
// The registry outlives the sink's use of it and only grows.
class SampleSink {
public:
    virtual ~SampleSink() = default;

    virtual void begin(const FrameRegistry& registry, const RecordingInfo& info) {
        (void)registry;
        (void)info;
    }
    virtual void addBatch(const SampleBatch& batch) = 0;
    // A thread the recording's --mode skipped (ReadOptions::reportSkipped), seen at one
    // instant: its status, no frames. It is not a sample: only a sink that draws every
    // thread's state (the live timeline) takes it.
    virtual void addSkipped(const SampleBatch& batch) { (void)batch; }
    // A thread's name (see ThreadName), on the producing thread; again when it changes. It
    // may come before the thread's first sample. CPython's `.bin` has no place for it:
    // TachWriter keeps the names beside the file (core/tach/thread_names_file.h).
    virtual void nameThread(uint64_t threadId, const std::string& name) {
        (void)threadId;
        (void)name;
    }
    // A named instant the user marked (the control socket's `mark`), on the producing
    // thread, in the samples' clock. Only the Gecko export keeps it.
    virtual void addMarker(uint64_t timestampUs, const std::string& text) {
        (void)timestampUs;
        (void)text;
    }
    // The target process as a whole (memory, threads, CPU), about every 20 ms, on the
    // producing thread, in the samples' clock. Not a sample: the timeline draws it, the
    // exports keep it (Gecko counters, pprof comments, the `.bin` side file).
    virtual void addCounters(const ProcessCounters& reading) { (void)reading; }
    // Called once after the last batch, with the sampler's figures when it had any.
    virtual void finish(const RecordingSummary& summary) { (void)summary; }

    // The sink's error channel: true once it can no longer store samples (its file
    // failed, its spill disk is full). The sampler asks after each tick and stops the
    // recording; what the sink holds until then is still written where it can be.
    // Called on the producing thread, so it must be cheap.
    virtual bool failed() const { return false; }
    // What went wrong, for the CLI and the GUI (only when failed()).
    virtual Error sinkError() const { return {}; }
};

} // namespace gilscope
