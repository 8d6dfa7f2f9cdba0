#pragma once

#include <cstdint>

namespace gilscope {

// How the sampler thread asks the kernel to run it on time. Both are best effort and
// apply to the calling thread.

// EEVDF (Linux 6.6+) lets a woken thread preempt the running one only when its virtual
// deadline is earlier; with the default slice (~3 ms) a sampler woken among busy threads
// can wait a whole tick or more (16 % of 1 kHz ticks missed next to two spinning Python
// threads). A short slice hint (sched_attr.sched_runtime for SCHED_OTHER, honoured since
// 6.12, ignored before) makes its deadline early, so it runs at once. Needs no privilege.
// Returns false when the kernel refused the hint.
bool requestShortTimeSlice(uint64_t sliceUs);

// SCHED_FIFO at `priority` (needs CAP_SYS_NICE or RLIMIT_RTPRIO). Returns false if refused.
bool requestRealtimePriority(int priority);

} // namespace gilscope
