#include "core/sampler/tick_waiter.h"

#include <algorithm>

namespace gilscope {

namespace {

// Per spun tick: the estimate halves in ~7,000 spins (140 ms at 50 kHz), so a re-check
// by sleeping (which may cost one missed tick) happens a few times a second at most.
constexpr double kForgetPerSpin = 0.9999;
// Late wake-ups raise the estimate faster than early ones lower it: a missed tick costs
// more than a short spin.
constexpr double kRiseWeight = 1.0 / 4;
constexpr double kFallWeight = 1.0 / 16;

} // namespace

void TickWaiter::learn(uint64_t lateUs) {
    const double late = static_cast<double>(std::min(lateUs, kMaxSpinUs));
    latencyUs_ += (late - latencyUs_) * (late > latencyUs_ ? kRiseWeight : kFallWeight);
}

bool TickWaiter::waitUntil(uint64_t deadlineUs, const std::atomic<bool>& stop) {
    for (;;) {
        if (stop.load(std::memory_order_relaxed)) return false;
        const uint64_t now = clock_.nowUs();
        if (now >= deadlineUs) return true;
        const uint64_t remaining = deadlineUs - now;
        if (spinAllowed_ && static_cast<double>(remaining) < latencyUs_) {
            clock_.spinUntilUs(deadlineUs); // < kMaxSpinUs, so no stop check inside
            ++spins_;
            latencyUs_ *= kForgetPerSpin;
            return true;
        }
        const uint64_t target = std::min(deadlineUs, now + kMaxSleepChunkUs);
        clock_.sleepUntilUs(target);
        ++sleeps_;
        const uint64_t woke = clock_.nowUs();
        if (target == deadlineUs) learn(woke > target ? woke - target : 0);
    }
}

} // namespace gilscope
