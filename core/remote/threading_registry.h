#pragma once

#include "core/remote/remote_dict.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gilscope::remote {

// A thread as Python's threading module knows it.
struct PythonThread {
    uint64_t nativeId = 0; // Thread._native_id, the OS thread id
    std::string name;      // Thread._name
};

// Reads threading's registry out of the target's main interpreter: sys.modules["threading"],
// its _active and _limbo dicts, each Thread's _name and _native_id. Threads threading did
// not make (_MainThread, _DummyThread for foreign threads) and those not started yet are
// left out: they keep their OS name. A target that has not imported threading has none.
// Bounded by RemoteDicts' budget; false (with error()) when the registry could not be read.
class ThreadingRegistry {
public:
    static constexpr size_t kMaxThreads = 8192; // CPython's own bound per interpreter
    static constexpr size_t kMaxNameChars = 256;

    ThreadingRegistry(ProcessMemory& mem, const PythonLayout& layout, uint64_t interp);

    bool read(std::vector<PythonThread>& out);
    const std::string& why() const { return dicts_.why(); }

private:
    const PythonLayout& layout_;
    uint64_t interp_;
    RemoteDicts dicts_;
    std::vector<DictEntry> entries_;
};

} // namespace gilscope::remote
