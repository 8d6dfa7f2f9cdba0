#include "core/sampler/sampler_clock.h"

#include <cerrno>
#include <ctime>

namespace gilscope {

uint64_t monotonicNowUs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

namespace {

class MonotonicSamplerClock final : public SamplerClock {
public:
    uint64_t nowUs() override { return monotonicNowUs(); }
    void sleepUntilUs(uint64_t deadlineUs) override {
        timespec ts{};
        ts.tv_sec = static_cast<time_t>(deadlineUs / 1000000u);
        ts.tv_nsec = static_cast<long>((deadlineUs % 1000000u) * 1000u);
        // Restart after a signal: the deadline is absolute, so nothing accumulates.
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
        }
    }
    void spinUntilUs(uint64_t deadlineUs) override {
        while (monotonicNowUs() < deadlineUs) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause(); // be kind to the sibling hyperthread
#endif
        }
    }
};

} // namespace

SamplerClock& systemSamplerClock() {
    static MonotonicSamplerClock clock;
    return clock;
}

} // namespace gilscope
