#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace gilscope {

// An append-only column whose elements live in fixed chunks that never move, so a copy
// (a query's snapshot) shares them instead of copying millions of elements: copying a
// column copies one pointer per 65,536 elements. Only the last chunk can still change;
// appending to it while another copy shares it copies that one chunk first (copy on
// write), so a copy never sees an element change or appear. Not thread-safe: as a
// std::vector, the owner serializes appends and copies (the model's lock); copies are then
// read freely.
template <typename T, unsigned kShift = 16>
class ChunkedColumn {
public:
    static constexpr size_t kChunk = size_t(1) << kShift;

    ChunkedColumn() = default;
    ChunkedColumn(std::initializer_list<T> values) {
        for (const T& v : values)
            push_back(v);
    }

    const T& operator[](size_t i) const { return raw_[i >> kShift][i & (kChunk - 1)]; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T& back() const { return (*this)[size_ - 1]; }

    void push_back(const T& v) {
        const size_t slot = size_ & (kChunk - 1);
        if (slot == 0) {
            chunks_.push_back(std::shared_ptr<T[]>(new T[kChunk]));
            raw_.push_back(chunks_.back().get());
        } else if (chunks_.back().use_count() > 1) {
            // A copy shares the last chunk: it keeps the chunk as it is, we take a copy.
            std::shared_ptr<T[]> own(new T[kChunk]);
            for (size_t i = 0; i < slot; ++i)
                own[i] = chunks_.back()[i];
            chunks_.back() = std::move(own);
            raw_.back() = chunks_.back().get();
        }
        raw_.back()[slot] = v;
        ++size_;
    }
    // An element to change in place (a column being built): its chunk is copied first
    // when a copy shares it.
    T& mutableAt(size_t i) {
        std::shared_ptr<T[]>& chunk = chunks_[i >> kShift];
        if (chunk.use_count() > 1) {
            std::shared_ptr<T[]> own(new T[kChunk]);
            const size_t used = std::min(kChunk, size_ - (i >> kShift << kShift));
            for (size_t k = 0; k < used; ++k)
                own[k] = chunk[k];
            chunk = std::move(own);
            raw_[i >> kShift] = chunk.get();
        }
        return raw_[i >> kShift][i & (kChunk - 1)];
    }
    template <typename... Args>
    void emplace_back(Args&&... args) {
        push_back(T{std::forward<Args>(args)...});
    }
    void clear() {
        chunks_.clear();
        raw_.clear();
        size_ = 0;
    }
    // Copies every element out (a consumer that wants contiguous memory).
    std::vector<T> toVector() const {
        std::vector<T> out;
        out.reserve(size_);
        for (size_t i = 0; i < size_; ++i)
            out.push_back((*this)[i]);
        return out;
    }

private:
    std::vector<std::shared_ptr<T[]>> chunks_;
    std::vector<T*> raw_; // chunks_' pointers, for operator[] without a control block
    size_t size_ = 0;
};

} // namespace gilscope
