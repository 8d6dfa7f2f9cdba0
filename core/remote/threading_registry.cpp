#include "core/remote/threading_registry.h"

#include <unordered_set>

namespace gilscope::remote {

ThreadingRegistry::ThreadingRegistry(ProcessMemory& mem, const PythonLayout& layout,
                                     uint64_t interp)
    : layout_(layout), interp_(interp), dicts_(mem, layout) {
}

bool ThreadingRegistry::read(std::vector<PythonThread>& out) {
    out.clear();
    dicts_.beginRefresh();
    if (layout_.inModules == kAbsent) return true;
    uint64_t modules = 0, threading = 0, globals = 0;
    if (!dicts_.pointer(interp_ + layout_.inModules, modules)) return false;
    if (!modules) return true; // still starting
    if (!dicts_.lookup(modules, "threading", threading)) return false;
    if (!threading) return true; // threading not imported: no Python-named threads
    if (!dicts_.pointer(threading + layout_.objectHeader /* md_dict */, globals)) return false;
    // _limbo holds threads between start() and their registration in _active; a thread
    // there may already have its native id.
    std::vector<uint64_t> threads;
    for (const char* registry : {"_active", "_limbo"}) {
        uint64_t dict = 0;
        if (!dicts_.lookup(globals, registry, dict)) return false;
        if (!dict) continue;
        if (!dicts_.entries(dict, entries_)) return false;
        for (const DictEntry& e : entries_)
            if (e.value && threads.size() < kMaxThreads) threads.push_back(e.value);
    }
    std::unordered_set<uint64_t> seen;
    for (uint64_t thread : threads) {
        if (!seen.insert(thread).second) continue;
        const auto type = dicts_.typeName(thread);
        if (!type) return false;
        if (*type == "_MainThread" || *type == "_DummyThread") continue;
        uint64_t nameObj = 0, idObj = 0, nativeId = 0;
        if (!dicts_.attribute(thread, "_native_id", idObj)) return false;
        if (!idObj || !dicts_.smallInt(idObj, nativeId) || nativeId == 0) continue; // not started
        if (!dicts_.attribute(thread, "_name", nameObj)) return false;
        auto name = nameObj ? dicts_.string(nameObj, kMaxNameChars) : std::nullopt;
        if (!name || name->empty()) continue;
        out.push_back({nativeId, std::move(*name)});
    }
    return true;
}

} // namespace gilscope::remote
