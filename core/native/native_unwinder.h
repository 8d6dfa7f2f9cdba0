#pragma once

#include "core/common/error.h"
#include "core/remote/remote_memory.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/user.h>
#include <vector>

struct Dwfl;

namespace gilscope::target {
class AttachedProcess;
}

namespace gilscope::native {

// A thread's user registers in DWARF's x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp
// r8-r15, then rip (the return-address column, 16).
struct Registers {
    static constexpr unsigned kSp = 7, kPc = 16, kCount = 17;
    std::array<uint64_t, kCount> regs{};
    // Which of regs are known (bit i: DWARF register i). An unknown one stops the unwind
    // at the first frame whose CFI needs it, rather than guess.
    uint32_t known = (1u << kCount) - 1;
    // The registers an unwind starts from: the stack pointer, the pc and the callee-saved
    // ones (rbx, rbp, r12-r15). Caller-saved registers mean nothing past the leaf, and
    // libdwfl's x86_64 rules would carry rax from frame to frame as if saved, so two
    // unwinds of the same frames would differ by it (UnwindMemo compares registers). A
    // leaf whose CFI needs one of them ends the unwind instead.
    static constexpr uint32_t kUnwindFrom = 1u << 3 | 1u << 6 | 1u << kSp | 0xfu << 12 | 1u << kPc;

    // From ptrace's PTRACE_GETREGS layout.
    static Registers fromPtrace(const user_regs_struct& r) {
        Registers out;
        out.regs = {r.rax, r.rdx, r.rcx, r.rbx, r.rsi, r.rdi, r.rbp, r.rsp, r.r8,
                    r.r9,  r.r10, r.r11, r.r12, r.r13, r.r14, r.r15, r.rip};
        return out;
    }
    // A thread blocked in the kernel, from /proc/PID/task/TID/syscall ("NR ARGS... SP PC",
    // or "-1 SP PC"): only its stack pointer and pc are known. Nothing for "running".
    static std::optional<Registers> fromSyscallFile(std::string_view text);
};

// One native frame, leaf first. `pc` is where the frame is now (the leaf) or the return
// address into it (callers); `sp` is its stack pointer (a caller's is its callee's CFA).
struct NativeFrame {
    uint64_t pc = 0;
    uint64_t sp = 0;
    bool activation = false; // pc is exact (leaf or signal frame), not a return address
    uint64_t lookupPc() const { return activation ? pc : pc - 1; } // inside the call
    bool operator==(const NativeFrame&) const = default;
};

// Unwinds a thread's native stack with elfutils (libdwfl): the DWARF CFI of every mapped
// ELF (.eh_frame, .debug_frame, separate debug info), from registers and stack memory
// that the caller supplies. It never stops the target itself: the registers come from
// ptrace (--blocking) or a perf sample, and the stack words from `memory`, which may be
// a copy taken at the sample. The module list is read from /proc/PID/maps, and again
// when the leaf's pc, or the pc where an unwind stopped, falls outside every known module
// (a library loaded since).
class UnwindMemo;

class NativeUnwinder {
public:
    static constexpr size_t kMaxFrames = 512;

    static Result<std::unique_ptr<NativeUnwinder>> open(int pid);
    // Through a door already open (the recording's).
    static Result<std::unique_ptr<NativeUnwinder>>
    open(std::shared_ptr<const target::AttachedProcess> door);
    ~NativeUnwinder();
    NativeUnwinder(const NativeUnwinder&) = delete;
    NativeUnwinder& operator=(const NativeUnwinder&) = delete;

    // Leaf-first frames of thread `tid`. False when not even the leaf could be placed;
    // the frames found before an unwinding stop are kept (the outermost C frames often
    // have no CFI), with the reason in error().
    bool unwind(int tid, const Registers& regs, remote::ProcessMemory& memory,
                std::vector<NativeFrame>& out);
    const std::string& why() const { return why_; }

    // Frames taken from the thread's last unwind instead of unwound again (UnwindMemo).
    uint64_t framesReused() const;
    // Forgets the last unwinds: the next one of every thread unwinds in full (tests).
    void forgetUnwinds();

    // The session's module list, for symbol lookups (NativeSymbols).
    Dwfl* dwfl() const { return dwfl_; }
    int pid() const { return pid_; }
    const std::shared_ptr<const target::AttachedProcess>& process() const { return door_; }
    // Re-reads the module list when the target's file mappings changed (looked at, at most
    // every kRefreshCheckMs): a pc in no known module, or an unwind that stopped early.
    // Reading /proc/PID/maps costs ~0.1 ms, so a steady early stop (code without CFI) costs
    // ~0.1% of a core; a script's imports are seen within a tenth of a second.
    static constexpr int64_t kRefreshCheckMs = 100;
    bool refreshModules();

    // Where libdwfl opens this target's files (through its door) for the calls made on
    // this thread while it lives: every call into the module list needs one.
    class TargetScope {
    public:
        explicit TargetScope(const NativeUnwinder& unwinder);
        ~TargetScope();
        TargetScope(const TargetScope&) = delete;
        TargetScope& operator=(const TargetScope&) = delete;

    private:
        const NativeUnwinder* previous_;
    };

private:
    explicit NativeUnwinder(std::shared_ptr<const target::AttachedProcess> door);
    bool attach();
    void unwindOnce(int tid, const Registers& regs, remote::ProcessMemory& memory,
                    std::vector<NativeFrame>& out);

    friend struct DwflThreadHooks;
    std::shared_ptr<const target::AttachedProcess> door_;
    int pid_;
    Dwfl* dwfl_ = nullptr;
    int64_t lastRefreshMs_ = 0;
    std::string mappedFiles_; // the file mappings the module list was read from
    // The unwind in progress: what the hooks read.
    const Registers* regs_ = nullptr;
    remote::ProcessMemory* memory_ = nullptr;
    std::vector<NativeFrame>* frames_ = nullptr;
    std::unique_ptr<UnwindMemo> memo_;
    std::string why_;
};

} // namespace gilscope::native
