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

    // Where the variable `name` lives in a frame of `code` (read afresh, not cached):
    // its slot in the frame's localsplus, and whether the slot holds a cell.
    struct Slot {
        size_t index = 0;
        bool cell = false;
    };
    std::optional<Slot> slotOf(uint64_t code, std::string_view name, std::string& error);
    // A slot's word as read: the object it holds (0: unbound); whether it is an int
    // carried in the word itself (3.14+), and that int.
    uint64_t decodeSlot(uint64_t slot) const;
    bool taggedInt(uint64_t slot) const;
    static int64_t taggedIntValue(uint64_t slot) { return static_cast<int64_t>(slot) >> 2; }

private:
    struct Names {
        std::vector<std::string> names;
        std::vector<uint8_t> kinds; // 3.11+ CO_FAST_* bits; <= 3.10 made up from the counts
        size_t arguments = 0;       // the first `arguments` slots are the call's arguments
    };
    bool readNames(uint64_t code, Names& out, std::string& error);
    bool readNameTuple(uint64_t tuple, std::vector<std::string>& out, std::string& error);

    const PythonLayout& layout_;
    RemoteDicts objects_;
    ValueDescriber values_;
    std::unordered_map<uint64_t, Names> names_; // per code object, within one dump
};

} // namespace gilscope::remote
