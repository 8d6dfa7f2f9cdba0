#pragma once

// Test doubles for the sampler's scheduler tests: a fake clock that only moves when
// told to (sleeping jumps straight to the deadline), and a StackSource that follows
// a script (per-read cost in fake time, outcomes, when the "target" ends).

#include "core/sample/sample_sink.h"
#include "core/sample/stack_source.h"
#include "core/sampler/sampler_clock.h"
#include "core/target/attached_process.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <vector>

namespace gilscope::test {

class FakeClock final : public SamplerClock {
public:
    // wakeLatencyUs: how late every sleep wakes up, as a real kernel does.
    explicit FakeClock(uint64_t startUs = 1000000, uint64_t wakeLatencyUs = 0)
        : now_(startUs), wakeLatencyUs_(wakeLatencyUs) {}
    uint64_t nowUs() override { return now_.load(); }
    void sleepUntilUs(uint64_t deadlineUs) override {
        ++sleeps_;
        if (deadlineUs > now_.load()) now_.store(deadlineUs + wakeLatencyUs_);
    }
    void spinUntilUs(uint64_t deadlineUs) override {
        ++spins_;
        const uint64_t now = now_.load();
        if (deadlineUs > now) {
            maxSpinUs_ = std::max(maxSpinUs_.load(), deadlineUs - now);
            now_.store(deadlineUs);
        }
    }
    void advance(uint64_t us) { now_ += us; }
    uint64_t sleeps() const { return sleeps_.load(); }
    uint64_t spins() const { return spins_.load(); }
    uint64_t maxSpinUs() const { return maxSpinUs_.load(); }

private:
    std::atomic<uint64_t> now_;
    uint64_t wakeLatencyUs_;
    std::atomic<uint64_t> sleeps_{0}, spins_{0}, maxSpinUs_{0};
};

class ScriptedStackSource final : public StackSource {
public:
    // read number n (0-based) costs cost(n) µs of fake time and returns outcome(n).
    ScriptedStackSource(FakeClock* clock, std::function<uint64_t(uint64_t)> cost,
                        std::function<ReadOutcome(uint64_t)> outcome, int threads = 1);

    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;
    FrameRegistry& registry() override { return registry_; }
    int pid() const override { return process_ ? process_->pid() : 4242; }
    std::shared_ptr<const target::AttachedProcess> process() const override { return process_; }
    // A real one: a Recording reads its counters.
    void setProcess(std::shared_ptr<const target::AttachedProcess> p) { process_ = std::move(p); }
    PythonVersion pythonVersion() const override { return {3, 13, 1}; }
    uint64_t reads() const { return reads_.load(); }

private:
    FakeClock* clock_;
    std::function<uint64_t(uint64_t)> cost_;
    std::function<ReadOutcome(uint64_t)> outcome_;
    int threads_;
    FrameRegistry registry_;
    std::vector<FrameId> stack_;
    std::atomic<uint64_t> reads_{0};
    std::shared_ptr<const target::AttachedProcess> process_;
};

// Records what the sampler hands over, on the sampler thread.
class RecordingSink final : public SampleSink {
public:
    void begin(const FrameRegistry&, const RecordingInfo& info) override {
        ++begins;
        this->info = info;
    }
    void addBatch(const SampleBatch& batch) override {
        if (begins != 1 || finishes != 0) ++outOfOrder;
        for (uint64_t t : batch.timestampsUs)
            timestamps.push_back(t);
        threadIds.push_back(batch.threadId);
        frameCounts.push_back(batch.frames.size());
    }
    void finish(const RecordingSummary& s) override {
        ++finishes;
        summary = s;
    }

    int begins = 0, finishes = 0, outOfOrder = 0;
    RecordingInfo info;
    RecordingSummary summary;
    std::vector<uint64_t> timestamps;
    std::vector<uint64_t> threadIds;
    std::vector<size_t> frameCounts;
};

} // namespace gilscope::test
