#pragma once

// Ctrl-C while recording: the first SIGINT (or SIGTERM) stops the recording and the
// output is still written; the second also cancels the write, so nothing half-written
// is left; a third gets the default action. The handler only touches atomics.

#include "core/util/cancel.h"

namespace gilscope::cli {

class InterruptGuard {
public:
    InterruptGuard();  // installs the handlers
    ~InterruptGuard(); // restores the previous ones
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    int count() const;
    // Cancelled by the second interrupt.
    const CancelToken& abortToken() const;
};

} // namespace gilscope::cli
