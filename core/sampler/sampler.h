#pragma once

// Contract of the background sampler (implementation: issue "Sampler thread").
// The GUI and the CLI both drive it through exactly this API.

#include "core/sample/sample_sink.h"
#include "core/sample/stack_source.h"
#include "core/sampler/producer_errands.h"
#include "core/sampler/sampler_clock.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace gilscope {

class SamplerGroup;

// How often a recording reads its target's counters: fine enough to place a step in
// memory beside the stacks that ran then, at about 1/3000 of a core.
inline constexpr uint32_t kCountersEveryMs = 20;

struct SamplerOptions {
    uint64_t intervalUs = 1000; // 1 kHz, CPython's default
    double durationSec = 0;     // 0: until stopped or the target exits
    ReadOptions read;
    // >0: run the sampler thread SCHED_FIFO at this priority (needs CAP_SYS_NICE), so
    // it wakes on time on a loaded machine. It sleeps between ticks, so it costs
    // others little at moderate rates. Ignored when the system refuses.
    int realtimePriority = 0;
    // Many samplers at a low rate (the host agent): ticks run on the group's one thread,
    // not one of their own, so 50 targets at 100 Hz cost 100 wake-ups a second, not
    // 5,000. The group must outlive the sampler.
    SamplerGroup* group = nullptr;
    // false: the sampler starts with sampling off (--start-disabled) until setEnabled.
    bool startEnabled = true;
    // >0: the Recording also reads the process's counters (memory, threads, CPU) this
    // often, on a thread of its own (kCountersEveryMs where a user records). Not in a
    // group (the agent): one more wake-up per target.
    uint32_t countersEveryMs = 0;
};

// A consistent snapshot of the live figures; cheap to take from any thread.
// Rates count sampling ticks (attempted reads, errors included) per second, as
// CPython's "Sample rate" does; errorPct says how many of those ticks failed.
struct SamplerStats {
    double requestedRateHz = 0;
    double achievedRateLastSecond = 0;
    double achievedRateOverall = 0;
    double minIntervalUs = 0, meanIntervalUs = 0, maxIntervalUs = 0;
    uint64_t okTicks = 0;       // ticks that read successfully
    uint64_t threadSamples = 0; // thread stacks handed to the sink
    uint64_t errors = 0;        // ticks whose read failed or was torn
    uint64_t missed = 0;        // ticks skipped because the sampler fell behind
    uint64_t paused = 0;        // ticks not taken while sampling was off (--control disable)
    double errorPct = 0;        // errors / attempted ticks
    double missedPct = 0;       // missed / expected ticks
    double elapsedSec = 0;
    double samplerCpuSec = 0; // CPU time used by the sampler thread itself
    TornReads torn;           // thread reads that tore, read again or dropped
    WaitTally waits;          // wait reasons asked of the kernel, and those it could not tell
    bool running = false;
};

enum class StopReason { NotStopped, Requested, Duration, TargetExited, SinkFailed };

// The clock time a recording of durationSec that starts at startUs ends at; UINT64_MAX
// ("until stopped") for 0, a negative or NaN duration, or one too long for the clock.
uint64_t endOfRecordingUs(uint64_t startUs, double durationSec);

class Sampler {
public:
    // source and sink must outlive the sampler. The sink is called on the sampler thread.
    Sampler(StackSource& source, SampleSink& sink, SamplerOptions options);
    // Same, with an injected clock (tests use a fake one). clock must outlive the sampler.
    Sampler(StackSource& source, SampleSink& sink, SamplerOptions options, SamplerClock& clock);
    ~Sampler(); // requests stop and joins

    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

    void start();
    void requestStop(); // async-signal-safe: only sets an atomic flag
    // Sampling on or off while the recording goes on (the control socket): an off tick
    // reads nothing and is neither a sample nor a missed tick. Any thread.
    void setEnabled(bool enabled);
    bool enabled() const;
    // A named instant, now (the control socket's `mark`): handed to the sink on the
    // sampler's thread at its next tick, or at the end. Any thread; at most kMaxMarks.
    void mark(std::string text);
    static constexpr size_t kMaxMarks = ProducerErrands::kMaxMarks;
    // A reading of the process's counters, stamped now in the samples' clock and handed to
    // the sink like a mark. Any thread.
    void addCounters(ProcessCounters reading);
    // Runs `errand` on the sampler's thread between two ticks, where it may use the sink
    // (a flush), and waits for it: the recording pauses meanwhile. False when it did not
    // run: the sampler has not started, or has ended.
    bool runBetweenTicks(std::function<void()> errand);
    StopReason wait(); // joins; calls sink.finish() exactly once before returning
    bool running() const;
    SamplerStats stats() const;
    RecordingSummary summary() const; // valid after wait()
    // Set when a sink failed or threw (the recording then stopped, StopReason::SinkFailed);
    // empty otherwise.
    std::string failure() const;
    // After wait(), when the target ended: why, in the source's words ("process 12 has
    // exited", or that it exec'd another program); empty otherwise.
    std::string endReason() const;
    ErrorKind failureKind() const; // of that failure (disk full, I/O ...)

private:
    friend class SamplerGroup;
    struct Impl;
    // On a group's thread: ends `d` if asked to stop, else ticks it if due (by `nowUs`);
    // false once it ended. Lowers `wakeUs` to its next deadline.
    static bool tickInGroup(Impl& d, uint64_t nowUs, uint64_t& wakeUs);
    static void endInGroup(Impl& d); // the group ends: so do its samplers
    std::unique_ptr<Impl> impl_;
};

} // namespace gilscope
