#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace gilscope {

// Set from any thread (GUI, signal handler); polled by long jobs between chunks.
class CancelToken {
public:
    CancelToken() = default;
    // Cancelled when cancel() is called on it or on `parent` (which must outlive it).
    explicit CancelToken(const CancelToken* parent) : parent_(parent) {}

    void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
    bool cancelled() const {
        return cancelled_.load(std::memory_order_relaxed) || (parent_ && parent_->cancelled());
    }

private:
    std::atomic<bool> cancelled_{false};
    const CancelToken* parent_ = nullptr;
};

// Progress of a long job, as done/total in the job's own unit (bytes or items).
using ProgressCallback = std::function<void(uint64_t done, uint64_t total)>;

} // namespace gilscope
