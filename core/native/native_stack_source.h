#pragma once

#include "core/native/native_symbols.h"
#include "core/native/native_unwinder.h"
#include "core/native/stack_merge.h"
#include "core/remote/remote_memory.h"
#include "core/sample/stack_source.h"

#include <memory>
#include <string>
#include <vector>

namespace gilscope::native {

// --native-stacks --blocking: reads each sample with every thread of the target stopped
// (as --blocking does), unwinds each thread's native stack from its registers, and
// merges it with the Python stack `inner` reads meanwhile. The inner source must mark
// eval-loop entries (ReadOptions::native) on 3.11+. A thread whose two stacks do not
// pair up is left out of that sample and counted (mismatches()).
class BlockingNativeStackSource final : public StackSource {
public:
    // all: --native-stacks=all (keep the eval loop and CPython's call plumbing).
    static Result<std::unique_ptr<BlockingNativeStackSource>> create(StackSource& inner, bool all);

    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override;
    FrameRegistry& registry() override { return inner_.registry(); }
    int pid() const override { return inner_.pid(); }
    PythonVersion pythonVersion() const override { return inner_.pythonVersion(); }
    std::string lastError() const override;
    bool takeThreadNames(std::vector<ThreadName>& changed) override {
        return inner_.takeThreadNames(changed);
    }
    std::vector<ThreadName> threadNamesNow() override { return inner_.threadNamesNow(); }

    uint64_t mismatches() const { return mismatches_; }

private:
    BlockingNativeStackSource(StackSource& inner, std::unique_ptr<NativeUnwinder> unwinder,
                              bool all);
    bool mergeThread(ThreadStack& t);

    StackSource& inner_;
    std::unique_ptr<NativeUnwinder> unwinder_;
    remote::RemoteMemory memory_;
    NativeSymbols symbols_;
    MergeOptions merge_;
    std::vector<NativeFrame> frames_;
    std::vector<NativeStackFrame> named_;
    StringId synthetic_ = 0;
    std::vector<FrameId> merged_;
    uint64_t mismatches_ = 0;
    std::string lastError_;
};

} // namespace gilscope::native
