#include "core/pipeline/stack_pipeline.h"

#include "core/native/native_stack_source.h"
#include "core/remote/live_stack_source.h"
#include "core/remote/thread_freezer.h"

namespace gilscope {

StackPipeline::StackPipeline(StackPipeline&&) noexcept = default;
StackPipeline& StackPipeline::operator=(StackPipeline&&) noexcept = default;
StackPipeline::~StackPipeline() = default;

Result<StackPipeline> StackPipeline::open(int pid, const ReadOptions& read, const ReadPath& path,
                                          uint64_t intervalUs) {
    auto python = openLiveProcess(pid, read);
    if (!python) return python.error();
    return over(std::move(*python), path, intervalUs);
}

Result<StackPipeline> StackPipeline::open(std::shared_ptr<const target::AttachedProcess> door,
                                          const ReadOptions& read, const ReadPath& path,
                                          uint64_t intervalUs) {
    auto python = openLiveProcess(std::move(door), read);
    if (!python) return python.error();
    return over(std::move(*python), path, intervalUs);
}

Result<StackPipeline> StackPipeline::over(std::unique_ptr<StackSource> python, const ReadPath& path,
                                          uint64_t intervalUs) {
    StackSource& base = *python;
    auto made = over(base, path, intervalUs);
    if (made) made->owned_ = std::move(python);
    return made;
}

Result<StackPipeline> StackPipeline::over(StackSource& python, const ReadPath& path,
                                          uint64_t intervalUs) {
    StackPipeline p;
    p.python_ = &python;
    // --blocking: one freeze up front says at once when the target cannot be stopped.
    if (path.blocking) {
        if (auto probe = remote::FrozenThreads::freeze(python.process()); !probe)
            return probe.error();
        if (!path.nativeStacks) p.blocking_ = std::make_unique<remote::BlockingStackSource>(python);
    }
    if (path.nativeStacks) {
        auto native =
            native::openNativeStackSource(python, path.nativeStacksAll, path.blocking, intervalUs);
        if (!native) return native.error();
        p.native_ = std::move(*native);
    }
    return p;
}

StackSource& StackPipeline::reader() const {
    if (native_) return *native_;
    if (blocking_) return *blocking_;
    return *python_;
}

} // namespace gilscope
