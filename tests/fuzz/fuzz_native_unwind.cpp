// libFuzzer target: --native-stacks unwinds a stack that the target wrote, and a perf
// sample copies it as it is: any registers and stack bytes must unwind to a bounded list
// of frames, or stop with an error; never a crash or a hang. An unwind that resumes from
// the last one (UnwindMemo) must give what a full unwind gives, frame for frame. The unwinder runs
// over this process's own modules (real CFI from real libraries), with the fuzz input as the only
// stack there is.
#include "core/native/native_symbols.h"
#include "core/native/native_unwinder.h"
#include "core/remote/remote_memory.h"

#include <cstring>
#include <unistd.h>

namespace {

// The input's tail as a stack at a fixed address; nothing else is readable.
class FuzzStack final : public gilscope::remote::ProcessMemory {
public:
    FuzzStack(uint64_t base, const uint8_t* data, size_t size)
        : base_(base), data_(data), size_(size) {}
    size_t readPartial(uint64_t addr, void* dst, size_t len) override {
        if (addr < base_ || addr - base_ > size_) return 0;
        const size_t n = std::min(len, size_ - size_t(addr - base_));
        std::memcpy(dst, data_ + (addr - base_), n);
        return n;
    }
    size_t readMany(std::span<const iovec>, std::span<const iovec>) override { return 0; }

private:
    uint64_t base_;
    const uint8_t* data_;
    size_t size_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gilscope::native;
    static auto unwinder = NativeUnwinder::open(::getpid());
    static gilscope::FrameRegistry registry;
    static NativeSymbols symbols(registry);
    if (!unwinder) return 0;
    Registers regs;
    const size_t regBytes = sizeof(uint64_t) * Registers::kCount;
    if (size < regBytes) return 0;
    std::memcpy(regs.regs.data(), data, regBytes);
    // The pc somewhere in this program's own code, so that real CFI drives the unwind.
    regs.regs[Registers::kPc] =
        reinterpret_cast<uint64_t>(&LLVMFuzzerTestOneInput) + (regs.regs[Registers::kPc] % 4096);
    const uint64_t base = 0x7ff000000000ull;
    regs.regs[Registers::kSp] = base + (regs.regs[Registers::kSp] % 64);
    FuzzStack stack(base, data + regBytes, size - regBytes);
    // The first unwind may resume from the last input's; then one from scratch, one that
    // notes every frame's registers, and one that resumes from it: all alike.
    std::vector<NativeFrame> frames, full, resumed;
    (*unwinder)->unwind(::getpid(), regs, stack, frames);
    if (frames.size() > NativeUnwinder::kMaxFrames) __builtin_trap();
    (*unwinder)->forgetUnwinds();
    (*unwinder)->unwind(::getpid(), regs, stack, full);
    (*unwinder)->unwind(::getpid(), regs, stack, full);
    (*unwinder)->unwind(::getpid(), regs, stack, resumed);
    if (frames != full || resumed != full) __builtin_trap();
    for (const NativeFrame& f : frames)
        symbols.lookup(**unwinder, f.lookupPc());
    return 0;
}
