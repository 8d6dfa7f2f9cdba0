#include "core/analysis/stack_interner.h"

namespace gilscope {

StackInterner::StackInterner() {
    nodes_.push_back(StackNode{});
    nodeFrames_.push_back(FrameId{}); // the root has no frame
    callNodeOf_.push_back(0);
}

namespace {
uint64_t stackHash(std::span<const FrameId> frames) {
    uint64_t h = 0x243F6A8885A308D3ull ^ frames.size();
    for (FrameId f : frames)
        h = (h ^ f.value()) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return h == UINT64_MAX ? 0 : h;
}
} // namespace

bool StackInterner::matches(uint32_t node, std::span<const FrameId> frames,
                            std::vector<uint32_t>& path) const {
    const size_t n = frames.size();
    path.resize(n);
    for (size_t i = 0; i < n; ++i) {
        if (node == 0 || nodeFrames_[node] != frames[i]) return false;
        path[n - 1 - i] = node;
        node = nodes_[node].parent;
    }
    return node == 0;
}

const StackInterner::FrameMeta& StackInterner::meta(FrameId id) {
    FrameMeta& m = frameMeta_.cover(id);
    if (m.known) return m;
    m.known = true;
    const FrameInfo& f = registry_->frame(id);
    const uint64_t fkey = (uint64_t{f.filename.value()} << 32) | f.funcname.value();
    auto [fit, newFunc] = functionIds_.try_emplace(fkey, static_cast<uint32_t>(functions_.size()));
    if (newFunc)
        functions_.push_back(
            {registry_->string(f.funcname), registry_->string(f.filename), f.line, f.native});
    FunctionInfo& fn = functions_[fit->second];
    if (f.line >= 0 && (fn.firstLine < 0 || f.line < fn.firstLine)) fn.firstLine = f.line;
    m.func = fit->second;
    const uint64_t lkey = (static_cast<uint64_t>(m.func) << 32) | static_cast<uint32_t>(f.line);
    auto [lit, newLine] = lineIds_.try_emplace(lkey, static_cast<uint32_t>(lines_.size()));
    if (newLine) lines_.push_back({m.func, f.line});
    m.line = lit->second;
    m.opcode = f.opcode;
    // The remote reader marks garbage collection with a synthetic "<GC>" frame.
    m.gc = fn.name == "<GC>";
    // `python -m profiling.sampling run` starts the target from this file; CPython's
    // collectors drop its frames, and so do we.
    m.filtered = fn.file.ends_with("_sync_coordinator.py");
    return m;
}

uint32_t StackInterner::child(uint32_t parent, FrameId frame) {
    if (meta(frame).filtered) return parent;
    const uint64_t key = (static_cast<uint64_t>(parent) << 32) | frame.value();
    auto [id, added] = children_.tryEmplace(key, static_cast<uint32_t>(nodes_.size()));
    if (added) {
        const FrameMeta& m = meta(frame);
        StackNode n;
        n.parent = parent;
        n.func = m.func;
        n.line = m.line;
        n.flags = (nodes_[parent].flags & StackNode::kGc) | (m.gc ? StackNode::kGc : 0) |
                  (uint32_t{m.opcode} << StackNode::kOpcodeShift);
        nodes_.push_back(n);
        nodeFrames_.push_back(frame);
        callNodeOf_.push_back(callNodes_.of(callNodeOf_[parent], m.func));
    }
    return id;
}

void StackInterner::freeze() {
    children_ = FlatMap64();
    stackIds_ = FlatMap64();
    nodeFrames_ = {};
    callNodes_.freeze();
    frameMeta_ = {};
    functionIds_ = {};
    lineIds_ = {};
    scratch_ = {};
}

StackId StackInterner::intern(PathCache& cache, std::span<const FrameId> frames) {
    const size_t n = frames.size(), m = cache.frames.size();
    // Depth of the root part shared with the previous stack of this thread.
    size_t common = 0;
    while (common < n && common < m && frames[n - 1 - common] == cache.frames[m - 1 - common])
        ++common;
    if (common == n && n == m) return StackId{n ? cache.path[n - 1] : 0};
    // A stack seen before (on any thread): one lookup and a walk instead of a lookup
    // per frame.
    const uint64_t h = stackHash(frames);
    if (const uint32_t* known = stackIds_.find(h); known && matches(*known, frames, scratch_)) {
        cache.path.swap(scratch_);
        cache.frames.assign(frames.begin(), frames.end());
        return StackId{*known};
    }
    cache.path.resize(n);
    uint32_t node = common ? cache.path[common - 1] : 0;
    for (size_t d = common; d < n; ++d) {
        node = child(node, frames[n - 1 - d]);
        cache.path[d] = node;
    }
    cache.frames.assign(frames.begin(), frames.end());
    stackIds_.tryEmplace(h, node);
    return StackId{node};
}

} // namespace gilscope
