// Python objects laid out in a FakeMemory for a given PythonLayout: str, bytes, code
// objects with a one-entry line table, 3.11+ interpreter frames in a datastack chunk or
// on the heap, and <= 3.10 frame objects. Just enough for FrameWalker and CodeCache.
#pragma once

#include "core/remote/python_layout.h"
#include "tests/unit/remote/fake_memory.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace gilscope::test {

class FakePython {
public:
    FakePython(FakeMemory& mem, const remote::PythonLayout& layout) : mem_(mem), l_(layout) {}

    // A fresh zeroed region on the fake heap (each its own mapping, 4 KiB apart at least).
    uint64_t alloc(size_t size) {
        const uint64_t addr = next_;
        next_ += (size + 4095 + 4096) & ~uint64_t{4095}; // a hole after each: unmapped
        mem_.map(addr, size);
        return addr;
    }

    uint64_t str(const std::string& s) {
        // RemoteObjects reads 512 bytes ahead first, as a heap object always has after it.
        const uint64_t a = alloc(std::max<size_t>(512, l_.strCompactSize + s.size() + 1));
        mem_.put<int64_t>(a, 1);
        mem_.put<int64_t>(a + l_.strLength, int64_t(s.size()));
        mem_.put<uint32_t>(a + l_.strState, 0x20 | 0x40 | (1 << 2)); // compact ascii, kind 1
        mem_.putBytes(a + l_.strAsciiSize, s.data(), s.size());
        return a;
    }

    uint64_t bytes(const std::vector<uint8_t>& b) {
        const uint64_t a = alloc(std::max<size_t>(512, l_.bytesData + b.size() + 1));
        mem_.put<int64_t>(a, 1);
        mem_.put<int64_t>(a + l_.bytesSize, int64_t(b.size()));
        if (!b.empty()) mem_.putBytes(a + l_.bytesData, b.data(), b.size());
        return a;
    }

    // A code object `name` in "fake.py" whose 4 instructions (8 bytes) all sit on line
    // firstLine + 1.
    uint64_t code(const std::string& name, int32_t firstLine, const std::string& file = "fake.py") {
        std::vector<uint8_t> table;
        if (l_.minor >= 11)
            table = {0x80 | (13 << 3) | 3, 0x02}; // 4 units, "line only", delta +1
        else if (l_.minor == 10)
            table = {8, 1}; // 8 bytes, line +1
        else
            table = {0, 1}; // lnotab: from byte 0, line +1
        const uint64_t a = alloc(l_.coSize + 16);
        mem_.put<int64_t>(a, 1);
        mem_.put<uint64_t>(a + l_.coFilename, str(file));
        mem_.put<uint64_t>(a + l_.coName, str(name));
        if (l_.coQualname != remote::kAbsent) mem_.put<uint64_t>(a + l_.coQualname, str(name));
        mem_.put<uint64_t>(a + l_.coLinetable, bytes(table));
        mem_.put<int32_t>(a + l_.coFirstlineno, firstLine);
        if (l_.coCodeAdaptive != remote::kAbsent)
            mem_.put<int64_t>(a + l_.varSize, 4); // code units
        else
            mem_.put<uint64_t>(a + l_.coCode, bytes(std::vector<uint8_t>(8, 0x09)));
        return a;
    }

    // 3.11+: where a frame running `code` points its instruction pointer (its 2nd unit).
    uint64_t instr(uint64_t code) const { return code + l_.coCodeAdaptive + 2; }

    // 3.11+: fills the _PyInterpreterFrame at addr.
    void modernFrame(uint64_t addr, uint64_t code, uint64_t previous, uint8_t owner,
                     bool entry = false) {
        mem_.put<uint64_t>(addr + l_.frCode, code);
        mem_.put<uint64_t>(addr + l_.frPrevious, previous);
        mem_.put<uint64_t>(addr + l_.frInstr, code ? instr(code) : 0);
        mem_.put<uint8_t>(addr + l_.frOwner, owner);
        if (l_.frIsEntry != remote::kAbsent) mem_.put<uint8_t>(addr + l_.frIsEntry, entry);
    }

    // <= 3.10: a live, executing PyFrameObject on the heap at its 2nd instruction.
    uint64_t legacyFrame(uint64_t code, uint64_t back) {
        const uint64_t a = alloc(l_.frSize);
        mem_.put<int64_t>(a + l_.frRefcnt, 1);
        mem_.put<uint64_t>(a + l_.frPrevious, back);
        mem_.put<uint64_t>(a + l_.frCode, code);
        mem_.put<int32_t>(a + l_.frLasti, l_.minor >= 10 ? 1 : 2); // code units / bytes
        setExecuting(a, true);
        return a;
    }
    void setExecuting(uint64_t frame, bool executing) {
        if (l_.frExecuting != remote::kAbsent)
            mem_.put<int8_t>(frame + l_.frExecuting, executing ? 1 : 0);
        if (l_.frState != remote::kAbsent)
            mem_.put<int8_t>(frame + l_.frState, executing ? 0 : -1); // FRAME_EXECUTING, SUSPENDED
    }

    // A type object whose tp_name is `name`, one per name.
    uint64_t type(const std::string& name) {
        if (auto it = types_.find(name); it != types_.end()) return it->second;
        const uint64_t t = alloc(512), n = alloc(64);
        mem_.putBytes(n, name.c_str(), name.size() + 1);
        mem_.put<uint64_t>(t + 24 + l_.headerShift(), n); // tp_name
        return types_[name] = t;
    }
    // An object of that type, with a reference count of 1.
    uint64_t object(const std::string& typeName, size_t size = 64) {
        const uint64_t o = alloc(size);
        mem_.put<int64_t>(o, 1);
        mem_.put<uint64_t>(o + l_.obType, type(typeName));
        return o;
    }

private:
    FakeMemory& mem_;
    const remote::PythonLayout& l_;
    uint64_t next_ = 0x7f0000000000;
    std::map<std::string, uint64_t> types_;
};

} // namespace gilscope::test
