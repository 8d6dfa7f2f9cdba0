#include "core/sampler/producer_errands.h"

#include <stdexcept>

namespace gilscope {

void ProducerErrands::mark(uint64_t timeUs, std::string text) {
    std::lock_guard lock(mutex_);
    if (marksTaken_ >= kMaxMarks || markBytes_ + text.size() > kMaxMarkBytes) return;
    ++marksTaken_;
    markBytes_ += text.size();
    marks_.emplace_back(timeUs, std::move(text));
}

void ProducerErrands::counters(const ProcessCounters& reading) {
    std::lock_guard lock(mutex_);
    if (counters_.size() >= kMaxPendingCounters) counters_.erase(counters_.begin());
    counters_.push_back(reading);
}

bool ProducerErrands::run(std::function<void()> errand) {
    auto e = std::make_shared<Errand>();
    e->work = std::move(errand);
    std::unique_lock lock(mutex_);
    if (closed_) return false;
    errands_.push_back(e);
    doneCv_.wait(lock, [&] { return e->done; });
    if (e->error) throw std::runtime_error(*e->error);
    return e->ran;
}

void ProducerErrands::handOn(SampleSink& sink) {
    std::vector<std::pair<uint64_t, std::string>> marks;
    std::vector<ProcessCounters> counters;
    std::vector<std::shared_ptr<Errand>> errands;
    {
        std::lock_guard lock(mutex_);
        if (marks_.empty() && counters_.empty() && errands_.empty()) return;
        marks.swap(marks_);
        counters.swap(counters_);
        errands.swap(errands_);
    }
    // Whatever happens below (a sink that throws), every errand taken is done when this
    // returns: its caller never waits for an errand no one holds.
    struct Release {
        ProducerErrands& self;
        std::vector<std::shared_ptr<Errand>>& errands;
        ~Release() {
            if (errands.empty()) return;
            {
                std::lock_guard lock(self.mutex_);
                for (const auto& e : errands)
                    e->done = true;
            }
            self.doneCv_.notify_all();
        }
    } release{*this, errands};
    for (const auto& [t, text] : marks)
        sink.addMarker(t, text);
    for (const ProcessCounters& c : counters)
        sink.addCounters(c);
    for (const auto& e : errands) {
        try {
            e->work(); // its own errors are its own: it reports them to its caller
        } catch (const std::exception& ex) {
            e->error = ex.what(); // thrown to the caller by run()
        } catch (...) {
            e->error = "unknown error";
        }
        std::lock_guard lock(mutex_);
        e->ran = e->done = true;
    }
}

void ProducerErrands::close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (const auto& e : errands_)
        e->done = true;
    errands_.clear();
    doneCv_.notify_all();
}

} // namespace gilscope
