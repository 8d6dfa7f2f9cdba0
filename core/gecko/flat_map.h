#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gilscope {

// Open-addressing hash map from uint64 keys to uint32 values, for the per-sample stack
// lookup: no allocation per entry, no modulo, one probe in the common case.
// UINT64_MAX is reserved as the empty key.
class FlatMap64 {
public:
    FlatMap64() { rehash(8); } // small: 40,000 threads may each hold one stack

    // Returns {value, inserted}: the existing value, or `value` after inserting it.
    std::pair<uint32_t, bool> tryEmplace(uint64_t key, uint32_t value) {
        if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
        size_t i = slotFor(key);
        while (true) {
            Slot& s = slots_[i];
            if (s.key == key) return {s.value, false};
            if (s.key == kEmpty) {
                s.key = key;
                s.value = value;
                ++size_;
                return {value, true};
            }
            i = (i + 1) & mask_;
        }
    }
    // The value for key, or nullptr.
    const uint32_t* find(uint64_t key) const {
        for (size_t i = slotFor(key);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.key == key) return &s.value;
            if (s.key == kEmpty) return nullptr;
        }
    }
    size_t size() const { return size_; }
    // Room for `entries` without growing (a build whose size is known up front).
    void reserve(size_t entries) {
        size_t count = slots_.size();
        while (entries * 4 > count * 3)
            count *= 2;
        if (count != slots_.size()) rehash(count);
    }

private:
    static constexpr uint64_t kEmpty = ~0ull;
    struct Slot {
        uint64_t key = kEmpty;
        uint32_t value = 0;
    };

    size_t slotFor(uint64_t key) const {
        return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
    }
    void rehash(size_t count) {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(count, Slot{});
        mask_ = count - 1;
        shift_ = 64;
        for (size_t c = count; c > 1; c >>= 1)
            --shift_;
        size_ = 0;
        for (const Slot& s : old)
            if (s.key != kEmpty) tryEmplace(s.key, s.value);
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t size_ = 0;
};

} // namespace gilscope
