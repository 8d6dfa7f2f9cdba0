#include "core/native/native_symbols.h"

#include "core/native/native_unwinder.h"
#include "core/util/file_name.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <iterator>
#include <memory>
#include <string_view>

namespace gilscope::native {

namespace {

// CPython's call machinery between an eval loop and the C code it calls or that calls
// it: a profile reads the same without it (py-spy and Austin fold these too). Prefixes,
// so that GCC's clones (".isra.0", ".cold") match.
constexpr std::string_view kPlumbing[] = {
    "_PyEval_Vector",
    "PyEval_EvalCode",
    "_PyEval_EvalCode",
    "PyEval_EvalFrame",
    "_PyEval_EvalFrame",
    "_PyFunction_Vectorcall",
    "_PyFunction_FastCall",
    "function_code_fastcall",
    "_PyObject_Vectorcall",
    "PyObject_Vectorcall",
    "_PyObject_Call",
    "PyObject_Call",
    "_PyObject_FastCall",
    "_PyVectorcall_Call",
    "PyVectorcall_Call",
    "_PyObject_MakeTpCall",
    "method_vectorcall",
    "cfunction_call",
    "cfunction_vectorcall",
    "vectorcall_method",
    "vectorcall_unbound",
    "slot_tp_call",
    "call_function",
    "do_call_core",
    "_PyCFunction_",
    "builtin_exec",
    "exec_code_in_module",
    "run_eval_code_obj",
    "run_mod",
    "pyrun_file",
    "_PyRun_",
    "PyRun_",
    "pymain_",
    "Py_RunMain",
    "Py_BytesMain",
    "thread_run",
    "t_bootstrap",
};

// A module's path as the target maps it (its mount namespace's), and where it starts; one
// name for the vdso of every process ("[vdso: 1234]" is "[vdso]").
const char* moduleName(Dwfl_Module* mod, Dwarf_Addr& start) {
    const char* name =
        dwfl_module_info(mod, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
    return name && std::string_view(name).starts_with("[vdso") ? "[vdso]" : name;
}

// Where the function holding pc starts, from its CFI (FDE) entry; pc itself when none.
uint64_t functionStart(Dwfl_Module* mod, uint64_t pc) {
    for (int pass = 0; pass < 2; ++pass) {
        Dwarf_Addr bias = 0;
        Dwarf_CFI* cfi =
            pass == 0 ? dwfl_module_eh_cfi(mod, &bias) : dwfl_module_dwarf_cfi(mod, &bias);
        Dwarf_Frame* frame = nullptr;
        if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) continue;
        Dwarf_Addr begin = 0, end = 0;
        const bool ok = dwarf_frame_info(frame, &begin, &end, nullptr) >= 0;
        std::free(frame);
        if (ok) return begin + bias;
    }
    return pc;
}

} // namespace

NativeKind NativeSymbols::classify(const std::string& name) {
    if (name.starts_with("_PyEval_EvalFrameDefault")) return NativeKind::Eval;
    for (std::string_view p : kPlumbing)
        if (std::string_view(name).starts_with(p)) return NativeKind::Plumbing;
    return NativeKind::Code;
}

std::string NativeSymbols::symbolName(const char* name) {
    if (!name) return {};
    // "clock_nanosleep@GLIBC_2.2.5": the symbol's version is not part of its name.
    const std::string_view plain(name, std::strcspn(name, "@"));
    if (plain.empty()) return name;
    return demangle(std::string(plain).c_str());
}

std::string NativeSymbols::demangle(const char* name) {
    if (!name) return {};
    if (name[0] != '_' || name[1] != 'Z') return name;
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> out(
        abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
}

StringId NativeSymbols::moduleOf(NativeUnwinder& unwinder, uint64_t addr) {
    NativeUnwinder::TargetScope target(unwinder);
    Dwfl_Module* mod = unwinder.dwfl() ? dwfl_addrmodule(unwinder.dwfl(), addr) : nullptr;
    Dwarf_Addr start = 0;
    const char* name = mod ? moduleName(mod, start) : nullptr;
    return name ? registry_.internString(name) : kNoString;
}

NativeSymbol NativeSymbols::lookup(NativeUnwinder& unwinder, uint64_t pc) {
    Dwfl* dwfl = unwinder.dwfl();
    NativeUnwinder::TargetScope target(unwinder);
    if (dwfl != cachedFor_) { // a new module list: addresses may mean other code now
        cache_.clear();
        ranges_.clear();
        cachedFor_ = dwfl;
    }
    if (auto it = cache_.find(pc); it != cache_.end()) return it->second;
    if (auto r = ranges_.upper_bound(pc); r != ranges_.begin() && pc < std::prev(r)->second.end)
        return std::prev(r)->second.symbol;
    std::string name, path = "?", library = "?";
    bool named = false;
    uint64_t symStart = 0, symEnd = 0; // the named symbol's range, when it has a size
    if (Dwfl_Module* mod = dwfl ? dwfl_addrmodule(dwfl, pc) : nullptr) {
        Dwarf_Addr start = 0;
        if (const char* modName = moduleName(mod, start)) {
            path = modName;
            library = std::string(fileName(path));
        }
        GElf_Off offset = 0;
        GElf_Sym sym;
        const char* symName =
            dwfl_module_addrinfo(mod, pc, &offset, &sym, nullptr, nullptr, nullptr);
        if (symName && *symName) {
            name = symbolName(symName);
            named = true;
            if (sym.st_size > 0 && offset < sym.st_size) {
                symStart = pc - offset;
                symEnd = symStart + sym.st_size;
            }
        } else {
            // No symbol (a stripped library): the function still has a start, its CFI
            // entry's, so that its samples add up under one name.
            const uint64_t fn = functionStart(mod, pc);
            char buf[32];
            std::snprintf(buf, sizeof buf, "+0x%llx", static_cast<unsigned long long>(fn - start));
            name = library + buf;
        }
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(pc));
        name = buf;
    }
    FrameInfo fi{registry_.internString(path), registry_.internString(name)};
    fi.native = true;
    NativeSymbol s{registry_.internFrame(fi), named ? classify(name) : NativeKind::Code, named};
    if (symEnd > symStart) {
        if (ranges_.size() >= kMaxCached) ranges_.clear();
        ranges_[symStart] = Range{symEnd, s};
        return s;
    }
    if (cache_.size() >= kMaxCached) cache_.clear();
    cache_.emplace(pc, s);
    return s;
}

} // namespace gilscope::native
