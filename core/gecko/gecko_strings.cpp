#include "core/gecko/gecko_strings.h"

#include "core/sample/wait_reason.h"
#include "core/util/utf8.h"

namespace gilscope {

namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace

uint32_t RegistryFacts::canonical(const FrameRegistry& reg, StringId id) {
    if (canonicalOf_.cover(id, 0) != 0) return canonicalOf_[id] - 1;
    const std::string& raw = reg.string(id);
    std::string text = isValidUtf8(raw) ? raw : sanitizeUtf8(raw);
    auto [it, inserted] = byText_.try_emplace(text, static_cast<uint32_t>(texts_.size()));
    if (inserted) texts_.push_back(std::move(text));
    canonicalOf_[id] = it->second + 1;
    return it->second;
}

void RegistryFacts::compute(const FrameRegistry& reg, FrameId id, FrameFacts& f) {
    const FrameInfo& info = reg.frame(id);
    f.file = canonical(reg, info.filename);
    f.func = canonical(reg, info.funcname);
    const std::string& file = texts_[f.file];
    // CPython's filter_internal_frames drops the profiler's own bootstrap frames.
    f.filtered = endsWith(file, "_sync_coordinator.py");
    f.native = info.native;
    f.isPython =
        !f.native && (file.empty() || file[0] != '<' || file == "<stdin>" || file == "<string>");
    f.isGc = texts_[f.func] == "<GC>";
    f.category = f.isPython ? kPythonCategory : kNativeCategory;
    // A wait leaf (--wait-reasons) colours its samples in the profiler's category graph.
    if (const auto wait = waitReasonOfFrame(file, texts_[f.func])) {
        switch (waitKindOf(*wait)) {
        case WaitKind::Lock:
            f.category = kLockCategory;
            break;
        case WaitKind::Io:
            f.category = kIoCategory;
            break;
        case WaitKind::Sleep:
            f.category = kSleepCategory;
            break;
        default:
            f.category = kIdleCategory; // polling, a child, another call
        }
    }
    f.opcode = info.opcode;
    // A missing line means CPython's location is None: no line and no column.
    if (info.line != kNoLocation) {
        f.line = info.line;
        f.column = info.column >= 0 ? info.column : -1;
    }
    f.known = true;
}

} // namespace gilscope
