#pragma once

#include "core/sample/frame_registry.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gilscope {

// shared.stringArray: "(root)" first, then strings in first-intern order, deduplicated.
class GeckoStrings {
public:
    GeckoStrings() { intern("(root)"); }

    uint32_t intern(std::string_view s) {
        auto it = index_.find(s);
        if (it != index_.end()) return it->second;
        const auto id = static_cast<uint32_t>(strings_.size());
        strings_.emplace_back(s);
        index_.emplace(strings_.back(), id);
        return id;
    }
    const std::string& at(uint32_t id) const { return strings_[id]; }
    size_t size() const { return strings_.size(); }

private:
    std::deque<std::string> strings_; // deque: the map's string_views stay valid
    std::unordered_map<std::string_view, uint32_t> index_;
};

inline constexpr int64_t kNullLine = std::numeric_limits<int64_t>::min();

// Indices into the profile's categories (profile_streamer.cpp's kCategories).
inline constexpr uint8_t kPythonCategory = 1, kNativeCategory = 2, kLockCategory = 9,
                         kIoCategory = 10, kSleepCategory = 11, kIdleCategory = 12;

// What the collector needs to know about one registry frame, computed once per FrameId.
// Strings are "canonical" ids: registry strings that are equal after UTF-8 repair share
// one id, so funcs and resources are keyed by text exactly as CPython keys them.
struct FrameFacts {
    bool known = false;
    bool filtered = false; // profiler-internal (_sync_coordinator.py)
    bool isPython = false; // CPython's _is_python(filename)
    bool isGc = false;     // funcname == "<GC>"
    uint8_t category = 0;  // the Gecko category of stacks ending here: Python, Native or a wait
    bool native = false;   // --native-stacks: a C function, its file a library
    uint8_t opcode = kNoOpcode;
    uint32_t file = 0; // canonical string ids
    uint32_t func = 0;
    int64_t line = kNullLine; // None when the location is missing
    int32_t column = -1;      // -1: None
};

// Per-registry caches: canonical strings and FrameFacts, grown as the registry grows.
class RegistryFacts {
public:
    const FrameFacts& frame(const FrameRegistry& reg, FrameId id) {
        FrameFacts& f = frames_.cover(id);
        if (!f.known) compute(reg, id, f);
        return f;
    }
    const std::string& text(uint32_t canonical) const { return texts_[canonical]; }

private:
    uint32_t canonical(const FrameRegistry& reg, StringId id);
    void compute(const FrameRegistry& reg, FrameId id, FrameFacts& f);

    IdVector<FrameId, FrameFacts> frames_;
    IdVector<StringId, uint32_t> canonicalOf_; // canonical id + 1 (0 = not yet)
    std::vector<std::string> texts_;           // canonical id -> valid UTF-8 text
    std::unordered_map<std::string, uint32_t> byText_;
};

} // namespace gilscope
