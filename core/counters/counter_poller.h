#pragma once

#include "core/counters/proc_counters.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace gilscope {

// Reads a process's counters every `period` on a thread of its own, so the sampler's
// tick never waits on /proc, and hands each reading to `deliver` (on that thread).
// Stops when asked, or once the process is gone.
class CounterPoller {
public:
    using Deliver = std::function<void(const ProcessCounters&)>;
    // `probe` (may be null) adds the interpreter's own counts to each reading.
    CounterPoller(ProcCounterReader reader, std::unique_ptr<CounterProbe> probe,
                  std::chrono::milliseconds period, Deliver deliver);
    ~CounterPoller(); // stops and joins
    CounterPoller(const CounterPoller&) = delete;
    CounterPoller& operator=(const CounterPoller&) = delete;

    // Takes one last reading (so a short recording has its end too), then joins.
    void stop();

private:
    void run();
    std::optional<ProcessCounters> read();
    ProcCounterReader reader_;
    std::unique_ptr<CounterProbe> probe_;
    std::chrono::milliseconds period_;
    Deliver deliver_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

} // namespace gilscope
