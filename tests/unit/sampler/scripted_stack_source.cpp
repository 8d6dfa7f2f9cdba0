#include "scripted_stack_source.h"

namespace gilscope::test {

ScriptedStackSource::ScriptedStackSource(FakeClock* clock, std::function<uint64_t(uint64_t)> cost,
                                         std::function<ReadOutcome(uint64_t)> outcome, int threads)
    : clock_(clock), cost_(std::move(cost)), outcome_(std::move(outcome)), threads_(threads) {
    const StringId file = registry_.internString("work.py");
    for (int depth = 0; depth < 3; ++depth) {
        FrameInfo f;
        f.filename = file;
        f.funcname = registry_.internString("f" + std::to_string(depth));
        f.line = 10 + depth;
        stack_.push_back(registry_.internFrame(f));
    }
}

ReadOutcome ScriptedStackSource::read(std::vector<ThreadStack>& out, size_t& count) {
    const uint64_t n = reads_++;
    if (clock_ && cost_) clock_->advance(cost_(n));
    const ReadOutcome outcome = outcome_ ? outcome_(n) : ReadOutcome::Ok;
    count = 0;
    if (outcome != ReadOutcome::Ok) return outcome;
    if (out.size() < static_cast<size_t>(threads_)) out.resize(threads_);
    for (int i = 0; i < threads_; ++i) {
        out[i].threadId = 100 + i;
        out[i].status = 0;
        out[i].frames = stack_;
    }
    count = threads_;
    return outcome;
}

} // namespace gilscope::test
