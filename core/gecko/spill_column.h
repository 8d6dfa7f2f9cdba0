#pragma once

#include "core/common/error.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

namespace gilscope {

// One column of fixed-size binary records, kept in a small memory buffer and appended
// to its own file whenever the buffer reaches its limit (CPython's SpillColumn, but
// binary instead of JSON lines). Memory stays at most one buffer, however many records.
class SpillColumn {
public:
    SpillColumn(std::filesystem::path path, size_t recordSize, size_t bufferBytes)
        : path_(std::move(path)), recordSize_(recordSize), limit_(bufferBytes) {}

    template <typename T>
    Status append(const T& record) {
        static_assert(std::is_trivially_copyable_v<T>);
        if (used_ + sizeof(T) > capacity_) grow(sizeof(T));
        std::memcpy(buf_.get() + used_, &record, sizeof(T));
        used_ += sizeof(T);
        ++count_;
        if (used_ >= limit_) return flush();
        return {};
    }

    // Appends the buffer to the file (creating it, even when the buffer is empty).
    Status flush();

    const std::filesystem::path& path() const { return path_; }
    size_t recordSize() const { return recordSize_; }
    uint64_t count() const { return count_; }

private:
    std::filesystem::path path_;
    size_t recordSize_;
    size_t limit_;
    void grow(size_t need);

    // Raw storage: a std::vector would zero-fill on every resize in the hot path.
    std::unique_ptr<char[]> buf_;
    size_t used_ = 0;
    size_t capacity_ = 0;
    uint64_t count_ = 0;
};

// Reads a flushed column back, a chunk at a time.
class SpillReader {
public:
    static Result<SpillReader> open(const SpillColumn& column);

    SpillReader() = default;
    SpillReader(SpillReader&& o) noexcept;
    SpillReader& operator=(SpillReader&& o) noexcept;
    ~SpillReader();

    // Next record, or nullptr at the end (check status() then).
    const char* next() {
        if (pos_ + recordSize_ <= len_) {
            const char* p = chunk_.data() + pos_;
            pos_ += recordSize_;
            return p;
        }
        return refill() ? next() : nullptr;
    }
    const Status& status() const { return status_; }

private:
    bool refill();

    int fd_ = -1;
    std::filesystem::path path_;
    size_t recordSize_ = 1;
    std::vector<char> chunk_;
    size_t pos_ = 0, len_ = 0;
    Status status_;
};

} // namespace gilscope
