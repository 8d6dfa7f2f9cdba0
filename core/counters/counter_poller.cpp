#include "core/counters/counter_poller.h"
#include "core/util/guarded_thread.h"

namespace gilscope {

CounterPoller::CounterPoller(ProcCounterReader reader, std::unique_ptr<CounterProbe> probe,
                             std::chrono::milliseconds period, Deliver deliver)
    : reader_(std::move(reader)), probe_(std::move(probe)), period_(period),
      deliver_(std::move(deliver)) {
    thread_ = std::thread(guardedThreadBody("the counters poller", [this] { run(); }));
}

CounterPoller::~CounterPoller() {
    stop();
}

void CounterPoller::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::optional<ProcessCounters> CounterPoller::read() {
    auto reading = reader_.read();
    if (reading && probe_) probe_->fill(*reading);
    return reading;
}

void CounterPoller::run() {
    auto next = std::chrono::steady_clock::now();
    for (;;) {
        const auto reading = read();
        if (!reading) return; // the process is gone
        deliver_(*reading);
        next += period_;
        std::unique_lock lock(mutex_);
        // Behind (a stopped machine): start again from now, no burst of readings.
        const auto now = std::chrono::steady_clock::now();
        if (next < now) next = now + period_;
        // Stop asked (even while the reading above was delivered): one more reading, taken
        // after the ask, so a recording always ends on a reading from its end.
        if (wake_.wait_until(lock, next, [this] { return stopping_; })) {
            lock.unlock();
            if (const auto last = read()) deliver_(*last);
            return;
        }
    }
}

} // namespace gilscope
