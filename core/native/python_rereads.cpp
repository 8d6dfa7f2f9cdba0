#include "core/native/python_rereads.h"

#include <chrono>

namespace gilscope::native {

namespace {
uint64_t monotonicNs() {
    using namespace std::chrono;
    return uint64_t(duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count());
}
} // namespace

PythonRereads::PythonRereads(StackSource& source, uint64_t budgetNs, Clock clock)
    : source_(source), budgetNs_(budgetNs), clock_(clock ? std::move(clock) : monotonicNs) {
}

void PythonRereads::startTick() {
    made_ = 0;
    spentNs_ = 0;
}

const PythonRereads::Read* PythonRereads::read(size_t i) {
    if (i < made_) return &tick_[i];
    if (i > made_ || made_ >= kMaxReads || spentNs_ >= budgetNs_) return nullptr;
    if (tick_.size() <= i) tick_.resize(i + 1);
    Read& r = tick_[i];
    const uint64_t start = clock_();
    r.outcome = source_.read(r.stacks, r.count);
    spentNs_ += clock_() - start;
    ++made_;
    ++reads_;
    return &r;
}

bool PythonRereads::pair(ThreadStack& t, const std::function<bool(ThreadStack&)>& pairs) {
    ThreadStack candidate;
    for (size_t i = 0;; ++i) {
        const Read* r = read(i);
        if (!r || r->outcome == ReadOutcome::ProcessEnded) return false;
        if (r->outcome != ReadOutcome::Ok) continue;
        for (size_t k = 0; k < r->count; ++k) {
            const ThreadStack& again = r->stacks[k];
            if (again.threadId != t.threadId || again.skipped) continue;
            candidate = again;
            if (pairs(candidate)) {
                t = std::move(candidate);
                return true;
            }
            break;
        }
    }
}

} // namespace gilscope::native
