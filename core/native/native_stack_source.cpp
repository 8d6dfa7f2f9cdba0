#include "core/native/native_stack_source.h"

#include "core/remote/thread_freezer.h"

#include <cerrno>
#include <cstring>
#include <sys/ptrace.h>
#include <sys/user.h>

namespace gilscope::native {

namespace {

bool threadRegisters(int tid, Registers& out, std::string& why) {
    user_regs_struct r{};
    if (::ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) {
        why = std::string("cannot read the registers of thread ") + std::to_string(tid) + ": " +
              std::strerror(errno);
        return false;
    }
    out.regs = {r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,
                r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15, r.rip};
    return true;
}

} // namespace

Result<std::unique_ptr<BlockingNativeStackSource>>
BlockingNativeStackSource::create(StackSource& inner, bool all) {
    auto unwinder = NativeUnwinder::open(inner.pid());
    if (!unwinder)
        return makeError(ErrorKind::Internal,
                         "--native-stacks: " + unwinder.error().message +
                             " (elfutils reads the target's libraries from /proc/PID/maps)");
    return std::unique_ptr<BlockingNativeStackSource>(
        new BlockingNativeStackSource(inner, std::move(*unwinder), all));
}

BlockingNativeStackSource::BlockingNativeStackSource(StackSource& inner,
                                                     std::unique_ptr<NativeUnwinder> unwinder,
                                                     bool all)
    : inner_(inner), unwinder_(std::move(unwinder)), memory_(inner.pid()),
      symbols_(inner.registry()) {
    merge_.all = all;
    merge_.runs = inner.pythonVersion().minor >= 11 ? PythonRuns::Entries : PythonRuns::OnePerFrame;
    synthetic_ = inner.registry().internString("~"); // <GC> and other frames of no file
}

bool BlockingNativeStackSource::mergeThread(ThreadStack& t) {
    Registers regs;
    if (!threadRegisters(static_cast<int>(t.threadId), regs, lastError_)) return false;
    if (!unwinder_->unwind(static_cast<int>(t.threadId), regs, memory_, frames_)) {
        lastError_ =
            "cannot unwind thread " + std::to_string(t.threadId) + ": " + unwinder_->error();
        return false;
    }
    named_.clear();
    for (const NativeFrame& f : frames_)
        named_.push_back({symbols_.lookup(*unwinder_, f.lookupPc()), f.sp});
    MergeInput in;
    in.python = t.frames;
    in.entries = t.evalEntries;
    in.native = named_;
    const FrameRegistry& reg = inner_.registry();
    while (in.syntheticLeaf < t.frames.size() &&
           reg.frame(t.frames[in.syntheticLeaf]).filename == synthetic_)
        ++in.syntheticLeaf;
    std::string why;
    if (!mergeStacks(in, merge_, reg, merged_, why)) {
        lastError_ = "thread " + std::to_string(t.threadId) + ": " + why;
        return false;
    }
    t.frames.swap(merged_);
    return true;
}

ReadOutcome BlockingNativeStackSource::read(std::vector<ThreadStack>& out, size_t& count) {
    auto frozen = remote::FrozenThreads::freeze(inner_.pid());
    if (!frozen) {
        lastError_ = frozen.error().message;
        return frozen.error().kind == ErrorKind::ProcessNotFound ? ReadOutcome::ProcessEnded
                                                                 : ReadOutcome::Error;
    }
    const ReadOutcome outcome = inner_.read(out, count);
    if (outcome != ReadOutcome::Ok) return outcome;
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
        ThreadStack& t = out[i];
        if (!t.skipped && !mergeThread(t)) {
            ++mismatches_;
            continue; // this thread's stack is not shown this sample
        }
        if (kept != i) std::swap(out[kept], t);
        ++kept;
    }
    count = kept;
    return kept > 0 || mismatches_ == 0 ? ReadOutcome::Ok : ReadOutcome::Error;
}

std::string BlockingNativeStackSource::lastError() const {
    return lastError_.empty() ? inner_.lastError() : lastError_;
}

} // namespace gilscope::native
