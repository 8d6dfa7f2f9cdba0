#pragma once

#include "core/common/typed_id.h"

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace gilscope {

// The registry's handles: a string and a frame, each its own type.
using StringId = TypedId<struct StringIdTag>;
using FrameId = TypedId<struct FrameIdTag>;
// Stacks are spans of ids, compared with memcmp (the Gecko collector's common root).
static_assert(sizeof(FrameId) == 4 && std::is_trivially_copyable_v<FrameId>);
// No string: a handle not set yet, or a lookup that found none.
inline constexpr StringId kNoString{UINT32_MAX};

inline constexpr int32_t kNoLocation = -1;
inline constexpr uint8_t kNoOpcode = 255;

// One Python frame, with its strings interned. Field meanings follow CPython's
// FrameInfo/LocationInfo: -1 means "not available".
struct FrameInfo {
    StringId filename;
    StringId funcname;
    int32_t line = kNoLocation;
    int32_t endLine = kNoLocation;
    int32_t column = kNoLocation;
    int32_t endColumn = kNoLocation;
    uint8_t opcode = kNoOpcode;
    // The code object's co_firstlineno (pprof's start_line); -1 where the producer does
    // not know it (a .bin replay, synthetic frames).
    int32_t firstLine = kNoLocation;
    // --native-stacks: a C/C++ function. Its filename is its library's path as the
    // target maps it, its funcname the (demangled) symbol, and it has no line.
    bool native = false;

    bool operator==(const FrameInfo&) const = default;
};

// The file of a frame that is no source code, as CPython names it: <native>, <GC>, a wait
// leaf ("<sleep>"), a label root.
inline constexpr std::string_view kPseudoFrameFile = "~";

// A .bin has no native flag, so its replay marks a frame native when it looks as
// --native-stacks writes one: no line, a funcname that is not synthetic ("<GC>"), and a
// file that is neither Python source (.py, .pyw), nor a synthetic name ("<string>", "~").
bool looksLikeNativeFrame(std::string_view file, std::string_view func, int32_t line);

// Append-only interning of strings and frames. The producer of samples (sampler or
// .bin replay) owns one; consumers map its small integer ids to their own tables.
// Ids are dense and stable, so a consumer can cache per-id data in a plain vector.
// Not thread-safe: it lives on the producing thread.
class FrameRegistry {
public:
    FrameRegistry();

    StringId internString(std::string_view s);
    FrameId internFrame(const FrameInfo& frame);

    const std::string& string(StringId id) const { return strings_[id.index()]; }
    const FrameInfo& frame(FrameId id) const { return frames_[id]; }
    size_t stringCount() const { return strings_.size(); }
    size_t frameCount() const { return frames_.size(); }
    bool has(FrameId id) const { return frames_.contains(id); }

private:
    struct FrameHash {
        size_t operator()(const FrameInfo& f) const noexcept;
    };
    // deque: references stay valid as it grows, so the map can key on string_view.
    std::deque<std::string> strings_;
    std::unordered_map<std::string_view, StringId> stringIds_;
    IdVector<FrameId, FrameInfo> frames_;
    std::unordered_map<FrameInfo, FrameId, FrameHash> frameIds_;
};

} // namespace gilscope
