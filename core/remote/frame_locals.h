#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_dict.h"
#include "core/remote/remote_memory.h"
#include "core/remote/value_describer.h"
#include "core/sample/stack_source.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// Reads a frame's arguments and local variables out of the target (dump --locals), named
// by its code object: 3.11+ co_localsplusnames/co_localspluskinds over the frame's
// localsplus; <= 3.10 co_varnames, co_cellvars, co_freevars over f_localsplus. Cells are
// followed to what they hold. Reads stay within one budget per thread (beginThread), so a
// torn or hostile frame costs bounded bytes and prints "<unreadable>".
class FrameLocalsReader {
public:
    static constexpr size_t kMaxVariables = 1024; // a frame with more is shown as an error
    static constexpr size_t kMaxNameChars = 128;

    FrameLocalsReader(ProcessMemory& mem, const PythonLayout& layout);

    // Whether this build's layout says where locals live.
    bool supported() const;
    // A new thread: a fresh byte budget (RemoteDicts::kMaxRefreshBytes).
    void beginThread();
    FrameLocals read(uint64_t frame, uint64_t code);

private:
    struct Names {
        std::vector<std::string> names;
        std::vector<uint8_t> kinds; // 3.11+ CO_FAST_* bits; <= 3.10 made up from the counts
        size_t arguments = 0;       // the first `arguments` slots are the call's arguments
    };
    bool readNames(uint64_t code, Names& out, std::string& error);
    bool readNameTuple(uint64_t tuple, std::vector<std::string>& out, std::string& error);
    uint64_t decodeSlot(uint64_t slot) const;
    bool taggedInt(uint64_t slot) const;

    const PythonLayout& layout_;
    RemoteDicts objects_;
    ValueDescriber values_;
    std::unordered_map<uint64_t, Names> names_; // per code object, within one dump
};

} // namespace gilscope::remote
