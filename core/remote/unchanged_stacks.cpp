#include "core/remote/unchanged_stacks.h"

namespace gilscope::remote {

bool UnchangedStacks::serve(uint64_t tstate, uint64_t threadId, uint64_t frameWord,
                            std::vector<FrameId>& out) {
    if (!now_.known || tstate == now_.lastHolder) return false;
    const auto it = entries_.find(tstate);
    if (it == entries_.end()) return false;
    Entry& e = it->second;
    if (e.switches != now_.switches || e.holder == tstate || e.threadId != threadId ||
        e.frameWord != frameWord)
        return false;
    e.seen = sampleNo_;
    out.insert(out.end(), e.frames.begin(), e.frames.end());
    ++served_;
    return true;
}

void UnchangedStacks::store(uint64_t tstate, uint64_t threadId, uint64_t frameWord,
                            std::span<const FrameId> frames) {
    if (!now_.known) return;
    if (entries_.size() >= kMaxEntries && !entries_.count(tstate)) return;
    Entry& e = entries_[tstate];
    e.threadId = threadId;
    e.frameWord = frameWord;
    e.switches = now_.switches;
    e.holder = now_.lastHolder;
    e.seen = sampleNo_;
    e.frames.assign(frames.begin(), frames.end());
}

void UnchangedStacks::endSample() {
    if (sampleNo_ % kForgetAfterSamples != 0) return;
    for (auto it = entries_.begin(); it != entries_.end();)
        it = sampleNo_ - it->second.seen > kForgetAfterSamples ? entries_.erase(it) : std::next(it);
}

} // namespace gilscope::remote
