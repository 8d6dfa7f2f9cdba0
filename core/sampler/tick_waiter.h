#pragma once

#include "core/sampler/sampler_clock.h"

#include <atomic>
#include <cstdint>

namespace gilscope {

// Waits for the sampler's next deadline. Sleeping costs little CPU but the kernel wakes
// us late by the platform's wake-up latency (25-50 µs on these VMs); when less time
// than that remains, a sleep would land after the deadline, at high rates after the
// next one too, so we spin instead. The latency is learned from our own sleeps and
// capped, so spinning never costs more than kMaxSpinUs per tick; while spinning it is
// slowly forgotten, so that one slow wake-up does not keep us spinning for good.
class TickWaiter {
public:
    static constexpr uint64_t kMaxSpinUs = 100;
    // Longest single sleep: bounds how long a stop request waits at low rates.
    static constexpr uint64_t kMaxSleepChunkUs = 20000;

    // From this interval up (10 kHz and slower) a sleep's late wake-up (25-50 µs, plus
    // the 5 % timer slack) lands well within the tick: the tick is a little late, never
    // missed, and spinning would only buy precision with CPU (5 % of a core at 1 kHz).
    // Faster rates spin near the deadline, or they would miss most ticks.
    static constexpr uint64_t kSleepOnlyFromIntervalUs = 100;

    explicit TickWaiter(SamplerClock& clock) : clock_(clock) {}

    // A SCHED_FIFO sampler must never spin: at real-time priority a spinning thread
    // starves everything else on its CPU (the kernel only throttles it at 95 %).
    void forbidSpinning() { spinAllowed_ = false; }

    // Returns false, without waiting further, once stop is set.
    bool waitUntil(uint64_t deadlineUs, const std::atomic<bool>& stop);

    double latencyUs() const { return latencyUs_; } // current estimate
    uint64_t spins() const { return spins_; }
    uint64_t sleeps() const { return sleeps_; }

private:
    void learn(uint64_t lateUs);

    SamplerClock& clock_;
    double latencyUs_ = 0;
    bool spinAllowed_ = true;
    uint64_t spins_ = 0, sleeps_ = 0;
};

} // namespace gilscope
