#pragma once

#include "core/sample/stack_source.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace gilscope::native {

// --native-stacks without pausing: later reads of the Python stacks, for the threads whose
// first read did not pair with their native sample (the thread moved on in between; a
// callback that comes and goes every few microseconds). A tick's later reads are shared by
// all of its threads and made only when one needs them: at most kMaxReads, and only while
// they took less than the tick's budget, so a steady target costs nothing more.
class PythonRereads {
public:
    static constexpr size_t kMaxReads = 16;
    using Clock = std::function<uint64_t()>; // now, in ns

    // budgetNs: the reading time one tick may spend. The clock is the monotonic one unless
    // a test passes its own.
    PythonRereads(StackSource& source, uint64_t budgetNs, Clock clock = {});

    // A new tick: the last tick's reads are stale.
    void startTick();
    // Offers thread t's stack from each later read, in order, to `pairs`, which merges the
    // stack in place and says whether it paired; the first that does replaces t. Each read
    // is one instant of the Python stacks, never a mix of two. A torn read is passed over
    // (the thread was caught mid-call: the next read may pair); an ended process ends it.
    bool pair(ThreadStack& t, const std::function<bool(ThreadStack&)>& pairs);

    uint64_t reads() const { return reads_; } // made so far, over all ticks

private:
    struct Read {
        std::vector<ThreadStack> stacks;
        size_t count = 0;
        ReadOutcome outcome = ReadOutcome::Error;
    };
    // This tick's read `i`, made now if it is the next one and the budget allows; null if not.
    const Read* read(size_t i);

    StackSource& source_;
    uint64_t budgetNs_;
    Clock clock_;
    std::vector<Read> tick_;
    size_t made_ = 0;      // this tick's reads
    uint64_t spentNs_ = 0; // this tick's reading time
    uint64_t reads_ = 0;
};

} // namespace gilscope::native
