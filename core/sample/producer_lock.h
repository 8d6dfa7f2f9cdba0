#pragma once

#include "core/sample/sample.h"

#include <cstdint>
#include <mutex>
#include <vector>

namespace gilscope {

// The lock between a sink's producer (the sampler thread, which must never wait) and its
// readers (GUI threads copying what they show). Readers hold it while they copy; the
// producer only tries it: while a reader holds it, a batch is copied and held back, and
// held-back batches are applied in order, before the next one, by the next add() that
// gets the lock (or by drain() at the end). So a reader costs the sampler a copy at
// worst, never a wait.
class ProducerLock {
public:
    // Readers (any thread): f runs with the lock held.
    template <typename F>
    decltype(auto) read(F&& f) const {
        std::lock_guard lock(mutex_);
        return f();
    }

    // Producer: apply(const SampleBatch&) for every held-back batch and then this one,
    // with the lock held; or, when a reader holds it, a copy of this batch waits.
    template <typename Apply>
    void add(const SampleBatch& batch, Apply&& apply) {
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) {
            held_.push_back(Held{batch.threadId,
                                 batch.interpreterId,
                                 batch.status,
                                 {batch.frames.begin(), batch.frames.end()},
                                 {batch.timestampsUs.begin(), batch.timestampsUs.end()}});
            ++heldBackTotal_;
            return;
        }
        applyHeld(apply);
        apply(batch);
    }

    // Producer, outside the hot path (begin, finish): waits for the lock, applies what
    // was held back, then runs f.
    template <typename Apply, typename F>
    void drain(Apply&& apply, F&& f) {
        std::lock_guard lock(mutex_);
        applyHeld(apply);
        f();
    }

    // Producer: whether the lock is free now; if so, f runs with it (and true comes back).
    template <typename F>
    bool tryWrite(F&& f) {
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return false;
        f();
        return true;
    }

    // Producer thread only: batches that found a reader holding the lock, in all.
    uint64_t heldBackTotal() const { return heldBackTotal_; }

private:
    struct Held {
        uint64_t threadId;
        uint32_t interpreterId, status;
        std::vector<FrameId> frames;
        std::vector<uint64_t> timestampsUs;
    };
    template <typename Apply>
    void applyHeld(Apply& apply) {
        for (const Held& h : held_)
            apply(SampleBatch{h.threadId, h.interpreterId, h.status, h.frames, h.timestampsUs});
        held_.clear();
    }

    mutable std::mutex mutex_;
    std::vector<Held> held_; // producer thread only
    uint64_t heldBackTotal_ = 0;
};

} // namespace gilscope
