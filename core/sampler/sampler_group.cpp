#include "core/sampler/sampler_group.h"

#include "core/sampler/sampler_clock.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>

namespace gilscope {

namespace {

// The longest sleep: how soon a stop request is seen when no sampler is due sooner.
constexpr uint64_t kMaxSleepUs = 20'000;

} // namespace

SamplerGroup::SamplerGroup() : thread_([this] { run(); }) {
}

SamplerGroup::~SamplerGroup() {
    {
        const std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void SamplerGroup::add(Sampler::Impl* sampler) {
    {
        const std::lock_guard lock(mutex_);
        added_.push_back(sampler);
    }
    wake_.notify_all();
}

void SamplerGroup::run() {
    // Deadlines a millisecond apart may share a wake-up: at 100 Hz nobody sees the
    // difference, and the kernel batches the timers.
    prctl(PR_SET_TIMERSLACK, 1'000'000UL, 0, 0, 0);
    SamplerClock& clock = systemSamplerClock();
    std::vector<Sampler::Impl*> members;
    std::unique_lock lock(mutex_);
    while (!quit_) {
        members.insert(members.end(), added_.begin(), added_.end());
        added_.clear();
        lock.unlock();
        uint64_t wakeUs = clock.nowUs() + kMaxSleepUs;
        std::erase_if(members, [&](Sampler::Impl* m) {
            return !Sampler::tickInGroup(*m, clock.nowUs(), wakeUs);
        });
        lock.lock();
        const uint64_t now = clock.nowUs();
        if (!quit_ && added_.empty() && wakeUs > now)
            wake_.wait_for(lock, std::chrono::microseconds(wakeUs - now),
                           [this] { return quit_ || !added_.empty(); });
    }
    lock.unlock();
    for (Sampler::Impl* m : members) // never left waiting: their owners wait for the end
        Sampler::endInGroup(*m);
}

} // namespace gilscope
