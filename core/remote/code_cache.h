#pragma once

#include "core/remote/line_table.h"
#include "core/remote/python_layout.h"
#include "core/remote/remote_objects.h"
#include "core/sample/frame_registry.h"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

// What we keep per code object, keyed by its address in the target.
struct CodeInfo {
    StringId filename;
    StringId funcname;
    int32_t firstLine = 0;
    uint64_t bytecodeAddr = 0; // co_code_adaptive (3.11+) or the co_code bytes data
    uint64_t bytecodeSize = 0; // bytes
    std::vector<uint8_t> lineTable;
    std::vector<uint8_t> bytecode; // only when opcodes are wanted
    // CPython memoises the last lookup per code object; frames usually sit still.
    int64_t lastOffset = INT64_MIN;
    SourceLocation lastLocation;
    // And the frame interned for it last (CodeCache::knownFrame): most frames of a sample
    // are the last sample's, and interning one costs a hash of the whole frame.
    int64_t lastFrameOffset = INT64_MIN;
    FrameId lastFrame{};
    uint32_t uses = 0;
    uint64_t globals = 0; // f_globals of the frames that ran it (3.11+), 0 if unknown
    // Fields of the code object that identify it (filename, name, co_code/linetable
    // pointers and first line): a freed code object whose address was reused by another
    // one almost never matches all of them, so a hit is checked against a fresh copy.
    uint64_t identity[4] = {};
    // One of CPython's own shim code objects (3.12's "<shim>" trampoline, 3.13+'s
    // "__init__" cleanup frame of CALL_ALLOC_AND_ENTER_INIT): not a Python frame.
    bool interpreterShim = false;
    // 3.12's "<shim>" trampoline, which only an eval loop's entry frame (owned by the C
    // stack) runs.
    bool trampoline = false;
    // A generator's, coroutine's or async generator's code (known on <= 3.10 only).
    bool resumable = false;
};

// Resolves code objects to interned names and line tables, reading each one once.
// A cached entry can go stale when its code object is freed and the address reused,
// so a hit is checked against the frame's instruction pointer (it must fall inside the
// bytecode) and against the frame's globals (start-up frees short-lived code, such as a
// .pth line's exec, and reuses the address for the program's own functions at once,
// with the instruction pointer inside the old bytecode's range), and entries are re-read
// every kRevalidateEvery uses.
class CodeCache {
public:
    CodeCache(ProcessMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
              uint64_t codeTypeAddr, bool wantBytecode);

    // nullptr when the object cannot be read or is not a code object. `globals` is the
    // frame's f_globals (0 if unknown): a frame of another module's globals running "the
    // same" code object means the address now holds another one, so it is checked.
    const CodeInfo* lookup(uint64_t codeAddr, uint64_t instrAddr, uint64_t globals = 0);

    // Same, validating a cached entry against `object`, a fresh copy of the code object's
    // first coSize bytes (<= 3.10 frames carry no instruction pointer to check against).
    const CodeInfo* lookupChecked(uint64_t codeAddr, std::span<const uint8_t> object);

    // A cached entry for a code object we have reason to believe unchanged (a frame that
    // still holds it and has not changed since the last sample); nullptr when there is
    // none or it is due for revalidation, and the caller then uses lookupChecked.
    const CodeInfo* lookupKnown(uint64_t codeAddr);

    // Location of a byte offset into the bytecode, memoised per code object.
    SourceLocation location(const CodeInfo& info, int64_t byteOffset);
    // The frame a walker interned for this code object at this offset last time (nullopt:
    // none yet, or another offset); a walker builds its frames the same way every time.
    std::optional<FrameId> knownFrame(const CodeInfo& info, int64_t byteOffset) const {
        if (info.lastFrameOffset != byteOffset) return std::nullopt;
        return info.lastFrame;
    }
    // Only for a started frame (offset >= 0): knownFrame() then never answers a negative one.
    void rememberFrame(const CodeInfo& info, int64_t byteOffset, FrameId frame) {
        if (byteOffset < 0) return;
        auto& c = const_cast<CodeInfo&>(info); // entries are ours; lookups hand them out const
        c.lastFrameOffset = byteOffset;
        c.lastFrame = frame;
    }

    void clear() {
        codes_.clear();
        strings_.clear();
    }
    size_t size() const { return codes_.size(); }
    bool contains(uint64_t codeAddr) const { return codes_.count(codeAddr) != 0; }

    static constexpr uint32_t kRevalidateEvery = 4096;

private:
    bool stillSameCode(uint64_t codeAddr, const CodeInfo& c); // re-reads its identity
    bool fill(uint64_t codeAddr, CodeInfo& out);
    bool fillFrom(uint64_t codeAddr, const std::vector<uint8_t>& code, CodeInfo& out);
    void identify(const std::vector<uint8_t>& code, uint64_t (&id)[4]) const;
    const CodeInfo* insert(uint64_t codeAddr, CodeInfo&& info);
    std::optional<StringId> string(uint64_t addr);

    ProcessMemory& mem_;
    const PythonLayout& layout_;
    FrameRegistry& registry_;
    RemoteObjects objects_;
    uint64_t codeTypeAddr_;
    bool wantBytecode_;
    LineTableFormat format_;
    std::unordered_map<uint64_t, CodeInfo> codes_;
    std::unordered_map<uint64_t, StringId> strings_; // only while filling one code object
    std::vector<uint8_t> scratch_;
};

} // namespace gilscope::remote
