#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"
#include "core/sample/process_counters.h"

#include <memory>
#include <vector>

namespace gilscope::remote {

// The GC counts of the built-in layouts (3.8-3.12): generation_stats[3] of 24-byte
// {collections, collected, uncollectable}, 72 bytes before gc.collecting.
void locateInlineGcStats(PythonLayout& l);
// 3.13+, from the target's _Py_DebugOffsets: gc is the interpreter's gc state, collecting
// and size as published; statsField/statsSize 3.15's published pointer and its struct size
// (0 before 3.15). Leaves the counts unlocated where the build is not one gilscope measured.
void locateGcStatsFromDebugOffsets(PythonLayout& l, uint64_t gc, uint64_t collecting,
                                   uint64_t statsField, uint64_t statsSize);

// Reads the interpreter's own GC counts (what gc.get_stats() returns: per generation, the
// collections and the objects they freed), for the counters' poller. Its own memory
// handle: it runs on the poller's thread, never the sampler's. Counts are running totals,
// so a reading that goes back, a ring index out of its ring, a value no interpreter could
// reach, or a copy written meanwhile (3.15's update_seq) is not taken: that reading says
// "not known".
class GcCountsProbe final : public CounterProbe {
public:
    // statsAddr: where the target keeps them (or, behindPointer, a pointer to them).
    GcCountsProbe(std::unique_ptr<ProcessMemory> memory, uint64_t statsAddr,
                  const GcStatsLayout& layout);
    void fill(ProcessCounters& reading) override;

private:
    bool readCounts(ProcessCounters& got);
    std::unique_ptr<ProcessMemory> memory_;
    uint64_t statsAddr_;
    GcStatsLayout layout_;
    std::vector<uint8_t> copy_;
    bool haveLast_ = false;
    ProcessCounters last_; // the last counts taken
};

// The probe of a live process's main interpreter, or null where its layout does not
// locate the counts (or nothing is known yet: no interpreter).
std::unique_ptr<CounterProbe> makeGcCountsProbe(int pid, const PythonLayout& layout,
                                                uint64_t runtimeAddr, uint64_t mainInterpAddr);

} // namespace gilscope::remote
