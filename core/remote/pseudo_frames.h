#pragma once

#include "core/sample/frame_registry.h"

#include <string>
#include <unordered_map>

namespace gilscope::remote {

// Interns the reader's pseudo-frames (file "~", no line: a wait leaf, a label root) by
// name. Bounded: past maxKept names, a name is interned again (the registry dedupes) and
// not kept.
class PseudoFrames {
public:
    PseudoFrames(FrameRegistry& registry, size_t maxKept)
        : registry_(registry), maxKept_(maxKept) {}

    FrameId frame(const std::string& name) {
        if (auto it = frames_.find(name); it != frames_.end()) return it->second;
        if (file_ == kNoString) file_ = registry_.internString(kPseudoFrameFile);
        FrameInfo f;
        f.filename = file_;
        f.funcname = registry_.internString(name);
        f.line = f.endLine = 0;
        const FrameId id = registry_.internFrame(f);
        if (frames_.size() < maxKept_) frames_.emplace(name, id);
        return id;
    }

private:
    FrameRegistry& registry_;
    size_t maxKept_;
    StringId file_ = kNoString;
    std::unordered_map<std::string, FrameId> frames_;
};

} // namespace gilscope::remote
