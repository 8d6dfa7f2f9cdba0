#pragma once

#include "core/common/error.h"
#include "core/sample/stack_source.h"

#include <memory>

namespace gilscope {

namespace native {
class NativeStackSourceBase;
}
namespace remote {
class BlockingStackSource;
}

// How a recording reads its target (issue 35, step 2): the live reader alone, or read
// through --blocking (every thread stopped for each sample, ptrace) or --native-stacks
// (the C frames too, perf events and unwinding, itself blocking or not).
struct ReadPath {
    bool blocking = false;
    bool nativeStacks = false;
    bool nativeStacksAll = false; // --native-stacks=all: keep the interpreter's own frames
};

// The readers one recording samples, chosen once, here, for the CLI, the window and the
// agent alike: reader() is what the sampler reads, python() the live reader under it.
class StackPipeline {
public:
    // Opens the live process `pid` and builds the path on it.
    static Result<StackPipeline> open(int pid, const ReadOptions& read, const ReadPath& path,
                                      uint64_t intervalUs);
    // The same through a door already open (a recording's, for a snapshot of its target).
    static Result<StackPipeline> open(std::shared_ptr<const target::AttachedProcess> door,
                                      const ReadOptions& read, const ReadPath& path,
                                      uint64_t intervalUs);
    // Builds the path on a reader the caller opened (a launched target's); owns it.
    static Result<StackPipeline> over(std::unique_ptr<StackSource> python, const ReadPath& path,
                                      uint64_t intervalUs);
    // The same on a reader the caller keeps, which must outlive the pipeline.
    static Result<StackPipeline> over(StackSource& python, const ReadPath& path,
                                      uint64_t intervalUs);

    StackPipeline(StackPipeline&&) noexcept;
    StackPipeline& operator=(StackPipeline&&) noexcept;
    ~StackPipeline();

    StackSource& reader() const;
    StackSource& python() const { return *python_; }
    // --native-stacks: its wrapper (how stacks paired), else null.
    native::NativeStackSourceBase* nativeStacks() const { return native_.get(); }

private:
    StackPipeline() = default;
    std::unique_ptr<StackSource> owned_;
    StackSource* python_ = nullptr;
    std::unique_ptr<remote::BlockingStackSource> blocking_;
    std::unique_ptr<native::NativeStackSourceBase> native_;
};

} // namespace gilscope
