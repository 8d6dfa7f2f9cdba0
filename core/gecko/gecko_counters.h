#pragma once

#include "core/analysis/parallelism.h"
#include "core/gecko/json_writer.h"
#include "core/sample/process_counters.h"

#include <string>
#include <vector>

namespace gilscope {

// The process's counters as the profile's top-level "counters" (processed format v57:
// name, category, description, pid, mainThreadIndex, samples {time, count, length}).
// Each count is the change since the previous sample, as Gecko's counters are, so the
// first is the value itself. "Memory" is the Firefox Profiler's memory track; the thread
// count and CPU time ride along for tools that read them.
// With them, "Python threads at once" (ParallelismTally): per window of the samples, how
// many threads ran Python at once on average, in thousandths of a thread (Gecko's counts
// are integers).
struct ParallelWindow {
    uint64_t startUs = 0; // in the samples' clock
    ParallelBucket counts;
};
void writeGeckoCounters(JsonWriter& out, const CounterSeries& counters,
                        const std::vector<ParallelWindow>& parallel, uint64_t baseUs,
                        const std::string& pid, uint32_t mainThreadIndex);

// Sums counted ticks into windows of `windowUs`, twice as wide whenever there would be
// more than kMaxWindows: an hour costs what a few minutes do.
class ParallelWindows {
public:
    static constexpr size_t kMaxWindows = 100000;
    void add(uint64_t timeUs, const TickCounts& counts);
    const std::vector<ParallelWindow>& windows() const { return windows_; }

private:
    uint64_t windowUs_ = 10'000;
    std::vector<ParallelWindow> windows_;
};

} // namespace gilscope
