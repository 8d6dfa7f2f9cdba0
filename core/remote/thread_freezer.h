#pragma once

// --blocking: stops every thread of a target for one sample, as CPython's
// pause_threads() does (PTRACE_SEIZE and PTRACE_INTERRUPT each thread, read, detach).
// gilscope is attached only while a sample is taken, so the target never stays
// stopped: the destructor detaches, and if gilscope dies the kernel detaches for it.
// A signal that reached a thread while it was stopped is delivered on detach.

#include "core/common/error.h"
#include "core/sample/stack_source.h"
#include "core/target/attached_process.h"

#include <memory>
#include <string>
#include <vector>

namespace gilscope::remote {

class FrozenThreads {
public:
    // Stops the threads of the process behind `door` present now (from its own task
    // list); waits for each to stop (a thread that exits meanwhile is left out). Fails when
    // the process cannot be traced at all, or has ended (ProcessNotFound): its thread ids
    // may be another process's by then, so whatever was stopped is let go at once.
    static Result<FrozenThreads> freeze(std::shared_ptr<const target::AttachedProcess> door);

    FrozenThreads() = default;
    FrozenThreads(FrozenThreads&& o) noexcept
        : door_(std::move(o.door_)), tids_(std::move(o.tids_)) {
        o.tids_.clear();
    }
    FrozenThreads& operator=(FrozenThreads&&) = delete;
    ~FrozenThreads(); // resumes every thread

    size_t stopped() const { return tids_.size(); }
    const std::vector<int>& threads() const { return tids_; }

private:
    std::shared_ptr<const target::AttachedProcess> door_;
    std::vector<int> tids_; // seized threads
};

// A StackSource that reads `inner` with every thread of the target stopped.
class BlockingStackSource final : public StackSourceWrapper {
public:
    using StackSourceWrapper::StackSourceWrapper;
    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;
};

} // namespace gilscope::remote
