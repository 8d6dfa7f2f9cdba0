#include "core/sample/torn_reads.h"

#include <cstdio>

namespace gilscope {

namespace {

template <typename... Args>
std::string format(const char* fmt, Args... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

} // namespace

std::string describeTornReads(const TornReads& t) {
    if (t.reread == 0 && t.dropped == 0) return {};
    const uint64_t torn = t.reread + t.dropped;
    const double triesEach = torn ? double(t.tries + torn) / double(torn) : 0;
    return format("Torn reads: %.2f%% of thread reads tore and were read again (%.1f tries "
                  "each); %.2f%% tore at every try and were dropped",
                  100.0 * double(torn) / double(t.reads()), triesEach, t.droppedPct());
}

std::string tornReadsWarning(const TornReads& t) {
    if (t.droppedPct() <= kTornWarningPct) return {};
    return format("Warning: %.1f%% of thread reads were dropped as torn (the target ran on "
                  "while its stack was read, even when read again). Code that calls and "
                  "returns fastest tears most, so its share may be low; --blocking reads "
                  "consistent stacks, at the cost of pausing the target",
                  t.droppedPct());
}

} // namespace gilscope
