#pragma once

#include <cstdint>

namespace gilscope {

// Time source and absolute-deadline sleeper of the sampler. The real one uses
// CLOCK_MONOTONIC; scheduler tests inject a fake one so they run in no real time
// and can simulate slow reads deterministically.
class SamplerClock {
public:
    virtual ~SamplerClock() = default;
    virtual uint64_t nowUs() = 0;
    // Sleeps until the monotonic time deadlineUs (returns at once if it has passed).
    // The kernel may wake us later than asked; callers measure by how much.
    virtual void sleepUntilUs(uint64_t deadlineUs) = 0;
    // Busy-waits until deadlineUs: on time, at the price of the CPU it burns.
    virtual void spinUntilUs(uint64_t deadlineUs) = 0;
};

// CLOCK_MONOTONIC in µs, the timestamp every sample carries.
uint64_t monotonicNowUs();

// The real clock: clock_nanosleep(TIMER_ABSTIME), so waiting costs no CPU and
// deadlines do not drift.
SamplerClock& systemSamplerClock();

} // namespace gilscope
