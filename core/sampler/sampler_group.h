#pragma once

// One thread that ticks many samplers (SamplerOptions::group): the host agent records
// dozens of processes at 100 Hz, and a thread per process would wake thousands of times
// a second, most of its CPU going to the wake-ups rather than the reads. Each sampler
// keeps its own deadlines, statistics and end; the group runs whichever are due, in
// turn, then sleeps until the next deadline. A stop request is seen within one tick.

#include "core/sampler/sampler.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace gilscope {

class SamplerGroup {
public:
    SamplerGroup();
    ~SamplerGroup(); // every sampler of the group must have been waited for
    SamplerGroup(const SamplerGroup&) = delete;
    SamplerGroup& operator=(const SamplerGroup&) = delete;

private:
    friend class Sampler;
    void add(Sampler::Impl* sampler); // from Sampler::start, once begun
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Sampler::Impl*> members_; // guarded by mutex_
    std::vector<Sampler::Impl*> added_;   // guarded by mutex_: taken in by the thread
    bool quit_ = false;
    std::thread thread_;
};

} // namespace gilscope
