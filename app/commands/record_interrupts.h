#pragma once

// Ctrl-C while recording: the first SIGINT (or SIGTERM) stops the recording and the
// output is still written; the second also cancels the write, so nothing half-written
// is left. A job with nothing worth keeping half-done (`replay`, `info`) is cancelled by
// the first one, silently: the job says it was cancelled. After the cancelling one, the
// next gets the default action. The handler only touches atomics.

#include "core/util/cancel.h"

namespace gilscope::cli {

enum class FirstInterrupt {
    Stops,  // a recording: stop and write what was recorded
    Cancels // a conversion or a decode: cancel it
};

class InterruptGuard {
public:
    // Installs the handlers.
    explicit InterruptGuard(FirstInterrupt first = FirstInterrupt::Stops);
    ~InterruptGuard(); // restores the previous ones
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

    int count() const;
    // Cancelled by the second interrupt (FirstInterrupt::Cancels: by the first).
    const CancelToken& abortToken() const;
};

} // namespace gilscope::cli
