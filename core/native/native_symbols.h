#pragma once

#include "core/sample/frame_registry.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

struct Dwfl;

namespace gilscope::native {
class NativeUnwinder;
}

namespace gilscope::native {

// What a native pc means to a reader of the profile.
enum class NativeKind : uint8_t {
    Code,     // a C/C++ function worth showing
    Eval,     // CPython's eval loop: where a run of Python frames belongs
    Plumbing, // CPython's call machinery around the eval loop (folded unless asked)
};

struct NativeSymbol {
    FrameId frame; // "name (library)": funcname the symbol, filename the library
    NativeKind kind = NativeKind::Code;
    bool named = false; // a symbol table named it ("libfoo.so+0x1234" otherwise)
};

// Names native pcs: the ELF symbol tables (.symtab, .dynsym, and separate debug info
// where the system has it), C++ names demangled, interned as frames whose file is the
// library's base name and whose line is unknown, so every output shows them as
// "qsort (libc.so.6)". Unnamed code shows as "libfoo.so+0x1234". Cached per pc, and per
// symbol's address range: an interpreter's innermost pc differs in nearly every sample,
// and libdwfl looks a pc up by scanning the module's whole symbol table. Both bounded.
class NativeSymbols {
public:
    static constexpr size_t kMaxCached = size_t{1} << 16;

    explicit NativeSymbols(FrameRegistry& registry) : registry_(registry) {}
    // Names pc in the unwinder's module list (which it may rebuild).
    NativeSymbol lookup(NativeUnwinder& unwinder, uint64_t pc);
    // The filename lookup() gives frames of the module holding `addr` (none: kNoString).
    StringId moduleOf(NativeUnwinder& unwinder, uint64_t addr);

    // Exposed for tests: how a symbol name is classified.
    static NativeKind classify(const std::string& name);
    static std::string demangle(const char* name);
    // A symbol table's name as shown: demangled, without its version ("@GLIBC_2.2.5").
    static std::string symbolName(const char* name);

private:
    FrameRegistry& registry_;
    struct Range {
        uint64_t end = 0; // past the symbol's last byte
        NativeSymbol symbol;
    };
    std::unordered_map<uint64_t, NativeSymbol> cache_;
    std::map<uint64_t, Range> ranges_; // by the symbol's start
    Dwfl* cachedFor_ = nullptr;
};

} // namespace gilscope::native
