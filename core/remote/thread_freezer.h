#pragma once

// --blocking: stops every thread of a target for one sample, as CPython's
// pause_threads() does (PTRACE_SEIZE and PTRACE_INTERRUPT each thread, read, detach).
// gilscope is attached only while a sample is taken, so the target never stays
// stopped: the destructor detaches, and if gilscope dies the kernel detaches for it.
// A signal that reached a thread while it was stopped is delivered on detach.

#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <string>

#include <vector>

namespace gilscope::remote {

class FrozenThreads {
public:
    // Stops the threads of `pid` present now; waits for each to stop (a thread that
    // exits meanwhile is left out). Fails when the process cannot be traced at all.
    static Result<FrozenThreads> freeze(int pid);

    FrozenThreads() = default;
    FrozenThreads(FrozenThreads&& o) noexcept : pid_(o.pid_), tids_(std::move(o.tids_)) {
        o.tids_.clear();
    }
    FrozenThreads& operator=(FrozenThreads&&) = delete;
    ~FrozenThreads(); // resumes every thread

    size_t stopped() const { return tids_.size(); }
    const std::vector<int>& threads() const { return tids_; }

private:
    int pid_ = 0;
    std::vector<int> tids_; // seized threads
};

// A StackSource that reads `inner` with every thread of the target stopped.
class BlockingStackSource final : public StackSource {
public:
    explicit BlockingStackSource(StackSource& inner) : inner_(inner) {}
    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;
    FrameRegistry& registry() override { return inner_.registry(); }
    int pid() const override { return inner_.pid(); }
    PythonVersion pythonVersion() const override { return inner_.pythonVersion(); }
    std::string lastError() const override;
    bool takeThreadNames(std::vector<ThreadName>& changed) override {
        return inner_.takeThreadNames(changed);
    }
    std::vector<ThreadName> threadNamesNow() override { return inner_.threadNamesNow(); }

private:
    StackSource& inner_;
    std::string lastError_;
};

} // namespace gilscope::remote
