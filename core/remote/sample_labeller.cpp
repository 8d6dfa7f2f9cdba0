#include "core/remote/sample_labeller.h"

namespace gilscope::remote {

SampleLabeller::SampleLabeller(ProcessMemory& mem, const PythonLayout& layout,
                               FrameRegistry& registry, const std::vector<LabelSource>& sources,
                               bool contexts, size_t maxThreads)
    : sources_(sources), labelFrames_(registry, 65536), maxThreads_(maxThreads) {
    std::vector<LabelSource> fromContext, fromFrames;
    for (size_t i = 0; i < sources.size(); ++i) {
        if (sources[i].fromFrame()) {
            frameIndex_.push_back(i);
            fromFrames.push_back(sources[i]);
        } else if (contexts) {
            contextIndex_.push_back(i);
            fromContext.push_back(sources[i]);
        }
    }
    if (!fromContext.empty())
        contexts_ = std::make_unique<ContextLabels>(mem, layout, std::move(fromContext));
    if (!fromFrames.empty())
        frames_ = std::make_unique<FrameLabels>(mem, layout, registry, std::move(fromFrames));
}

namespace {

bool anyFrame(const std::vector<FrameLabels::Anchor>& anchors) {
    for (const auto& a : anchors)
        if (a.frame != 0) return true;
    return false;
}

} // namespace

void SampleLabeller::label(ThreadStack& stack, uint64_t context, bool walked,
                           std::span<const FrameAddress> addresses, std::string& torn) {
    contextFailed_ = false;
    auto kept = kept_.find(stack.threadId);
    if (frames_ && walked) frames_->findAnchors(stack.frames, addresses, anchors_);
    // Kept when the thread ran no Python since (it set no variable), or ran in the same
    // context with the same frames of the labels' functions, and one read finds the
    // bytes the labels were decoded from unchanged (a set() replaces the context's
    // variables in place; a request's new path is new bytes).
    bool same = kept != kept_.end() && kept->second.context == context && !kept->second.failed;
    if (same && walked) {
        const Kept& k = kept->second;
        same = (!frames_ || (k.framesProven && k.anchors == anchors_ &&
                             (!anyFrame(anchors_) || frames_->stillHolds(k.frameProof)))) &&
               (!contexts_ || contexts_->stillHolds(k.contextProof));
    }
    if (same) {
        ++saved_;
    } else {
        // Not walked: the frames, so the anchors, are those of the thread's last walk.
        if (frames_ && !walked)
            anchors_ =
                kept != kept_.end() ? kept->second.anchors : std::vector<FrameLabels::Anchor>{};
        if (kept_.size() > 4 * maxThreads_) kept_.clear();
        readAgain(kept_[stack.threadId], context, torn);
        kept = kept_.find(stack.threadId);
    }
    // The first label is the outermost, as --label-from gave them; the stack is leaf first.
    stack.frames.insert(stack.frames.end(), kept->second.frames.rbegin(),
                        kept->second.frames.rend());
}

void SampleLabeller::readAgain(Kept& now, uint64_t context, std::string& torn) {
    ++reads_;
    now.context = context;
    now.failed = false;
    values_.assign(sources_.size(), std::nullopt);
    if (contexts_) {
        if (!contexts_->read(context, contextValues_)) {
            contextFailed_ = now.failed = true;
            torn = "a label could not be read: " + contexts_->why();
            contextValues_.assign(contextIndex_.size(), std::string(kUnreadableLabel));
        }
        now.contextProof = contexts_->lastProof();
        for (size_t i = 0; i < contextIndex_.size(); ++i)
            values_[contextIndex_[i]] = std::move(contextValues_[i]);
    }
    if (frames_) {
        now.anchors = anchors_;
        if (!frames_->read(anchors_, frameValues_)) {
            now.failed = true;
            if (torn.empty()) torn = "a label could not be read: " + frames_->why();
        }
        now.frameProof = frames_->lastProof();
        now.framesProven = !anyFrame(anchors_) || now.frameProof.complete;
        for (size_t i = 0; i < frameIndex_.size(); ++i)
            values_[frameIndex_[i]] = std::move(frameValues_[i]);
    }
    now.frames.clear();
    for (size_t i = 0; i < values_.size(); ++i)
        if (values_[i])
            now.frames.push_back(labelFrames_.frame(labelFrameName(sources_[i].key, *values_[i])));
}

} // namespace gilscope::remote
