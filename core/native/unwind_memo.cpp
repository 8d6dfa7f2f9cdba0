#include "core/native/unwind_memo.h"

#include <algorithm>

namespace gilscope::native {

void UnwindMemo::begin(int tid) {
    tid_ = tid;
    resumed_ = false;
    current_.steps.clear();
    current_.reads.clear();
    current_.stop.clear();
    frameFirstRead_ = 0;
    auto found = traces_.find(tid);
    last_ = found != traces_.end() ? &found->second : nullptr;
}

bool UnwindMemo::mayResumeAt(const NativeFrame& f) const {
    if (!last_) return false;
    const auto& steps = last_->steps;
    auto it = std::lower_bound(steps.begin(), steps.end(), f.sp,
                               [](const Step& s, uint64_t sp) { return s.frame.frame.sp < sp; });
    for (; it != steps.end() && it->frame.frame.sp == f.sp; ++it)
        if (it->frame.frame.pc == f.pc) return true;
    return false;
}

void UnwindMemo::read(uint64_t addr, bool ok, uint64_t value) {
    current_.reads.push_back({addr, ok ? value : 0, ok});
}

bool UnwindMemo::stillReads(const Trace& last, uint32_t from, remote::ProcessMemory& memory) const {
    for (size_t i = from; i < last.reads.size(); ++i) {
        const Read& r = last.reads[i];
        uint64_t value = 0;
        const bool ok = memory.readValue(r.addr, value);
        if (ok != r.ok || (ok && value != r.value)) return false;
    }
    return true;
}

bool UnwindMemo::reached(const Frame& f, remote::ProcessMemory& memory,
                         std::vector<NativeFrame>& out) {
    const uint32_t firstRead = frameFirstRead_;
    if (f.withRegs && last_) {
        const Trace& last = *last_;
        // Stack pointers grow from the leaf; the frame, if there, is among those at f's.
        auto it =
            std::lower_bound(last.steps.begin(), last.steps.end(), f.frame.sp,
                             [](const Step& s, uint64_t sp) { return s.frame.frame.sp < sp; });
        for (; it != last.steps.end() && it->frame.frame.sp == f.frame.sp; ++it) {
            if (!(it->frame == f) || !stillReads(last, it->firstRead, memory)) continue;
            // Resume: the last unwind's frames and reads from here on become this one's
            // (in place of the reads this frame made so far: the same ones, first among them).
            current_.reads.resize(firstRead);
            const uint32_t shift = firstRead - it->firstRead; // modulo 2^32, added back below
            for (auto s = it; s != last.steps.end() && out.size() < NativeUnwinder::kMaxFrames;
                 ++s) {
                out.push_back(s->frame.frame);
                current_.steps.push_back({s->frame, s->firstRead + shift});
            }
            current_.reads.insert(current_.reads.end(), last.reads.begin() + it->firstRead,
                                  last.reads.end());
            current_.stop = last.stop;
            framesReused_ += static_cast<uint64_t>(last.steps.end() - it);
            resumed_ = true;
            return true;
        }
    }
    current_.steps.push_back({f, firstRead});
    out.push_back(f.frame);
    return false;
}

const std::string& UnwindMemo::end(const std::string& stop) {
    if (!resumed_) current_.stop = stop;
    if (traces_.size() >= kMaxThreads && !traces_.count(tid_)) traces_.clear();
    last_ = nullptr; // traces_ changes below
    Trace& kept = traces_[tid_];
    std::swap(kept, current_); // current_ keeps the old trace's buffers for the next unwind
    return kept.stop;
}

void UnwindMemo::clear() {
    last_ = nullptr;
    traces_.clear();
}

} // namespace gilscope::native
