// libFuzzer target: --native-stacks pairs a Python stack read from the target (its eval
// entries' addresses are the target's words) with a native stack unwound from the target's
// memory. Any entries, frames, stack pointers and sampled entry frames must merge into a
// stack made of the inputs' frames, Python frames in their order, or be refused; never a
// crash, an out-of-range read or a Python frame that was not read.
#include "core/native/stack_merge.h"

#include <algorithm>
#include <cstring>

namespace {

// Reads the input a field at a time; past its end, zeros.
class Bytes {
public:
    Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    template <typename T>
    T take() {
        T v{};
        const size_t n = std::min(sizeof v, size_ - pos_);
        std::memcpy(&v, data_ + pos_, n);
        pos_ += n;
        return v;
    }

private:
    const uint8_t* data_;
    size_t size_, pos_ = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gilscope;
    using namespace gilscope::native;
    static FrameRegistry registry;
    static const StringId python = registry.internString("app.py");
    static const StringId interpreter = registry.internString("libpython3.12.so");
    static const char* const names[] = {"_PyEval_EvalFrameDefault",
                                        "PyObject_Vectorcall",
                                        "qsort_r",
                                        "closure_fcn",
                                        "_start",
                                        "main"};
    Bytes in(data, size);
    const uint8_t flags = in.take<uint8_t>();
    const size_t nPython = in.take<uint8_t>() % 16, nEntries = in.take<uint8_t>() % 8,
                 nNative = in.take<uint8_t>() % 24, nSampled = in.take<uint8_t>() % 4;
    std::vector<FrameId> pythonFrames;
    for (size_t i = 0; i < nPython; ++i)
        pythonFrames.push_back(registry.internFrame(
            {python, registry.internString("py" + std::to_string(i)), int32_t(i + 1)}));
    std::vector<EvalEntry> entries(nEntries);
    for (EvalEntry& e : entries) {
        e.end = in.take<uint8_t>() % 20;
        e.address = in.take<uint16_t>();
        e.previous = in.take<uint8_t>();
    }
    std::vector<NativeStackFrame> native(nNative);
    for (NativeStackFrame& f : native) {
        const uint8_t k = in.take<uint8_t>();
        const bool named = k & 0x80;
        const char* name = named ? names[(k & 0x7f) % std::size(names)] : "libpython3.12.so+0x1";
        f.symbol.frame =
            registry.internFrame({(k & 0x40) ? interpreter : registry.internString("libc.so.6"),
                                  registry.internString(name)});
        f.symbol.named = named;
        f.symbol.kind = named ? NativeSymbols::classify(name) : NativeKind::Code;
        f.sp = in.take<uint16_t>();
    }
    std::vector<SampledEntry> sampled(nSampled);
    for (SampledEntry& s : sampled) {
        s.frame = in.take<uint8_t>() % 32; // may name no frame
        s.previous = in.take<uint8_t>();
    }
    MergeInput input{pythonFrames, entries, size_t(in.take<uint8_t>() % 4), native, sampled};
    input.readAfterSample = flags & 1;
    MergeOptions options;
    options.runs = (flags & 2) ? PythonRuns::OnePerFrame : PythonRuns::Entries;
    options.all = flags & 4;
    if (flags & 8) options.interpreter = interpreter;
    std::vector<FrameId> out;
    std::string why;
    MergeHow how = MergeHow::Exact;
    if (!mergeStacks(input, options, registry, out, why, &how)) return 0;
    // Python frames keep their order; every frame out is an input frame.
    size_t next = 0;
    for (FrameId f : out) {
        const auto p = std::find(pythonFrames.begin(), pythonFrames.end(), f);
        if (p != pythonFrames.end()) {
            if (size_t(p - pythonFrames.begin()) < next) __builtin_trap();
            next = size_t(p - pythonFrames.begin()) + 1;
            continue;
        }
        if (std::none_of(native.begin(), native.end(),
                         [&](const NativeStackFrame& n) { return n.symbol.frame == f; }))
            __builtin_trap();
    }
    // The exceptions apply only to a stack read after its sample.
    if (!input.readAfterSample && how != MergeHow::Exact) __builtin_trap();
    return 0;
}
