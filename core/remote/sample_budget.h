#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>

namespace gilscope::remote {

// What one sample may read from the target, shared by both walkers of a sample (the
// frame walker and the asyncio task reader): one byte budget and one set of the
// addresses visited (stack chunks, tasks), both refilled when a sample begins. A target
// whose chunks or tasks loop, or that claims huge chunks, costs at most kMaxBytes per
// sample however it lies.
class SampleBudget {
public:
    // 64 MiB: 4,096 default-sized (16 KiB) stack chunks, far past 20,000-frame recursion.
    static constexpr size_t kMaxBytes = size_t{64} << 20;

    void begin() {
        left_ = kMaxBytes;
        if (!seen_.empty()) seen_.clear(); // clear() wipes every bucket, even when empty
    }
    // False (and nothing spent) once the sample would read more than kMaxBytes.
    bool spend(size_t bytes) {
        if (bytes > left_) return false;
        left_ -= bytes;
        return true;
    }
    // False when addr was already visited in this sample: the structure loops.
    bool firstVisit(uint64_t addr) { return seen_.insert(addr).second; }
    // A walk re-read within the sample (a torn walk's retry) visits its chunks again.
    void forget(uint64_t addr) { seen_.erase(addr); }

    static std::string exhaustedMessage() {
        return "one sample would read more than " + std::to_string(kMaxBytes >> 20) +
               " MiB of the target (torn or hostile memory)";
    }

private:
    size_t left_ = kMaxBytes;
    std::unordered_set<uint64_t> seen_;
};

} // namespace gilscope::remote
