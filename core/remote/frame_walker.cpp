#include "core/remote/frame_walker.h"

namespace gilscope::remote {

namespace {

std::variant<ModernWalker, LegacyWalker> walkerFor(WalkContext& ctx) {
    if (ctx.layout.legacyFrames) return LegacyWalker(ctx);
    return ModernWalker(ctx);
}

} // namespace

FrameWalker::FrameWalker(ProcessMemory& mem, const PythonLayout& layout, FrameRegistry& registry,
                         CodeCache& codes, bool opcodes)
    : ctx_(mem, layout, registry, codes, opcodes), walker_(walkerFor(ctx_)) {
}

bool FrameWalker::walk(std::span<const uint8_t> tstate, std::vector<FrameId>& out,
                       Prefetch& ahead) {
    ctx_.why.clear();
    ctx_.stopReason.clear();
    const size_t first = out.size();
    // With -a, every thread has its own read-ahead state (<= 3.10: its remembered chain).
    const bool ok = std::visit([&](auto& w) { return w.walk(tstate, out, ahead); }, walker_);
    if (ok && out.size() - first > maxDepth_) cutMiddle(out, first);
    return ok;
}

void FrameWalker::cutMiddle(std::vector<FrameId>& out, size_t first) {
    // Keep the leaf side whole (where the time goes) and the frames nearest the root (the
    // entry point: <module> and what it called), so that trees stay rooted; drop from
    // the middle, usually a recursion, and say so in one synthetic frame in its place.
    const size_t depth = out.size() - first;
    const size_t root = std::min(kRootFramesKept, (maxDepth_ - 1) / 4 + 1);
    const size_t leaf = maxDepth_ - 1 - root;
    const size_t dropped = depth - leaf - root;
    FrameRegistry& registry = ctx_.registry;
    FrameInfo cut{registry.internString(kPseudoFrameFile),
                  registry.internString("<truncated: " + std::to_string(dropped) + " frames>")};
    cut.line = cut.endLine = 0;
    const auto middle = out.begin() + static_cast<ptrdiff_t>(first + leaf);
    out.erase(middle, middle + static_cast<ptrdiff_t>(dropped));
    if (auto* addresses = ctx_.addresses) { // the frames cut have no place any more
        const size_t from = first + leaf, to = from + dropped;
        std::erase_if(*addresses,
                      [&](const FrameAddress& a) { return a.index >= from && a.index < to; });
        for (FrameAddress& a : *addresses) // those past them move up
            if (a.index >= to) a.index -= static_cast<uint32_t>(dropped - 1);
    }
    out.insert(out.begin() + static_cast<ptrdiff_t>(first + leaf), registry.internFrame(cut));
}

size_t FrameWalker::planPrefetch(Prefetch& ahead, std::vector<iovec>& local,
                                 std::vector<iovec>& remote) {
    if (ModernWalker* w = modern()) return w->planPrefetch(ahead, local, remote);
    ahead.drop(); // nothing of an earlier batch may be taken for this one
    return 0;
}

void FrameWalker::prefetchArrived(Prefetch& ahead, size_t complete) {
    if (ModernWalker* w = modern()) w->prefetchArrived(ahead, complete);
}

bool FrameWalker::describe(StructView f, FrameId& id, bool& python) {
    python = false;
    if (ModernWalker* w = modern()) return w->describe(f, id, python);
    return ctx_.fail("frames are described from a copy on 3.11+ only");
}

void FrameWalker::setStopFrame(uint64_t frame) {
    if (ModernWalker* w = modern()) w->setStopFrame(frame);
}

void FrameWalker::setNoneAddress(uint64_t none) {
    if (ModernWalker* w = modern()) w->setNoneAddress(none);
}

void FrameWalker::setNative(bool on) {
    if (ModernWalker* w = modern()) w->setNative(on);
}

void FrameWalker::setEvalEntries(std::vector<EvalEntry>* entries) {
    if (ModernWalker* w = modern()) w->setEvalEntries(entries);
}

} // namespace gilscope::remote
