#pragma once

#include "core/sample/sample_sink.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gilscope {

// What other threads hand to the producing (sampler) thread, handed on between two ticks
// so that no sink is ever called from two threads: the user's marks, and errands that need
// the sinks quiet (the control socket's `flush`).
class ProducerErrands {
public:
    static constexpr size_t kMaxMarks = 100000;
    static constexpr size_t kMaxMarkBytes = 8 << 20; // their texts together

    // A named instant: to the sink at the next handOn(). Beyond kMaxMarks, or
    // kMaxMarkBytes of text, dropped (a client in a loop cannot grow it further).
    void mark(uint64_t timeUs, std::string text);
    // A reading of the process's counters: to the sink at the next handOn(). At most
    // kMaxPendingCounters wait (a producer that stalls drops the oldest).
    void counters(const ProcessCounters& reading);
    static constexpr size_t kMaxPendingCounters = 1024;
    // Runs `errand` on the producer at its next handOn() and waits for it. False when it
    // did not run: the producer has ended (close()). An exception the errand throws is
    // thrown here, to the caller that asked, as a std::runtime_error with its message
    // (never on the producer; no exception object is shared between the two threads).
    bool run(std::function<void()> errand);
    // On the producer: the marks and counters to `sink`, then the errands.
    void handOn(SampleSink& sink);
    // The producer has ended: errands waiting, and any asked later, do not run.
    void close();

private:
    struct Errand {
        std::function<void()> work;
        bool done = false, ran = false;
        std::optional<std::string> error; // what() of what it threw
    };
    std::mutex mutex_;
    std::condition_variable doneCv_;
    std::vector<std::pair<uint64_t, std::string>> marks_;
    uint64_t marksTaken_ = 0, markBytes_ = 0;
    std::vector<ProcessCounters> counters_;
    std::vector<std::shared_ptr<Errand>> errands_;
    bool closed_ = false;
};

} // namespace gilscope
