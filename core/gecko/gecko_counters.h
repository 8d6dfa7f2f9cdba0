#pragma once

#include "core/gecko/json_writer.h"
#include "core/sample/process_counters.h"

#include <string>

namespace gilscope {

// The process's counters as the profile's top-level "counters" (processed format v57:
// name, category, description, pid, mainThreadIndex, samples {time, count, length}).
// Each count is the change since the previous sample, as Gecko's counters are, so the
// first is the value itself. "Memory" is the Firefox Profiler's memory track; the thread
// count and CPU time ride along for tools that read them.
void writeGeckoCounters(JsonWriter& out, const CounterSeries& counters, uint64_t baseUs,
                        const std::string& pid, uint32_t mainThreadIndex);

} // namespace gilscope
