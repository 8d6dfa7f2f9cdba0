#include "core/sample/frame_registry.h"

#include <functional>

namespace gilscope {

FrameRegistry::FrameRegistry() = default;

StringId FrameRegistry::internString(std::string_view s) {
    if (auto it = stringIds_.find(s); it != stringIds_.end()) return it->second;
    const auto id = StringId::fromIndex(strings_.size());
    const std::string& stored = strings_.emplace_back(s);
    stringIds_.emplace(std::string_view(stored), id);
    return id;
}

FrameId FrameRegistry::internFrame(const FrameInfo& frame) {
    if (auto it = frameIds_.find(frame); it != frameIds_.end()) return it->second;
    const FrameId id = frames_.push_back(frame);
    frameIds_.emplace(frame, id);
    return id;
}

bool looksLikeNativeFrame(std::string_view file, std::string_view func, int32_t line) {
    if (line != kNoLocation || file.empty() || func.empty() || func.front() == '<') return false;
    if (file.front() == '<' || file == kPseudoFrameFile) return false;
    return !file.ends_with(".py") && !file.ends_with(".pyw");
}

size_t FrameRegistry::FrameHash::operator()(const FrameInfo& f) const noexcept {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    mix(f.filename.value());
    mix(f.funcname.value());
    mix(static_cast<uint32_t>(f.line));
    mix(static_cast<uint32_t>(f.endLine));
    mix(static_cast<uint32_t>(f.column));
    mix(static_cast<uint32_t>(f.endColumn));
    mix(f.opcode);
    mix(static_cast<uint32_t>(f.firstLine));
    mix(f.native);
    return static_cast<size_t>(h);
}

} // namespace gilscope
