#pragma once

#include <cstdint>
#include <string>

namespace gilscope {

// How the thread reads of a recording went (issue 34). A read that tears (the thread ran
// on while its frames were copied) is read again at once, within a quarter of the tick
// interval; it is dropped only when every try tore. Counted per thread read.
struct TornReads {
    uint64_t firstTry = 0; // reads whole at the first try
    uint64_t reread = 0;   // reads whole after one or more tries tore
    uint64_t tries = 0;    // the extra tries those, and the dropped ones, took
    uint64_t dropped = 0;  // reads that tore at every try: no stack for that thread and tick
    uint64_t reads() const { return firstTry + reread + dropped; }
    double droppedPct() const { return reads() ? 100.0 * double(dropped) / double(reads()) : 0; }
};

// Off-CPU thread reads whose wait reason was asked of the kernel, and those it could not
// tell (a thread that exited between reads, /proc entries that vanished or could not be
// read): such a sample keeps its state with the reason "unknown", and the summary counts them.
struct WaitTally {
    uint64_t asked = 0;
    uint64_t unknown = 0;
};

// Above this share of thread reads dropped, the shares of call-heavy code may be low, and
// the summary and the window say so.
constexpr double kTornWarningPct = 2.0;

// "Torn reads: 12.3% of thread reads were read again (1.4 tries each); 0.02% dropped",
// empty when no read tore.
std::string describeTornReads(const TornReads& t);
// The warning for a recording that dropped more than kTornWarningPct, else empty.
std::string tornReadsWarning(const TornReads& t);

} // namespace gilscope
