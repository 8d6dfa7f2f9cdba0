#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

namespace gilscope {

// The one append-only file every spilled column of a collector writes its chunks to,
// so the number of files stays at one whatever the number of threads (40,000 threads
// once made 320,000 files). A failed append is taken back (the file is cut to its
// old length) and every later one fails at once: the columns then keep their data
// in memory, and the recording stops (GeckoCollector::failed()).
class SpillStore {
public:
    explicit SpillStore(std::filesystem::path path) : path_(std::move(path)) {}
    // A store that cannot write (its directory could not be made): columns keep
    // everything in memory.
    explicit SpillStore(Error e) : error_(std::move(e)) {}

    // Appends bytes; returns their offset in the file.
    Result<uint64_t> append(const char* data, size_t size);
    // Reads bytes appended earlier.
    Status read(uint64_t offset, char* out, size_t size) const;

    const std::optional<Error>& error() const { return error_; }
    const std::filesystem::path& path() const { return path_; }
    uint64_t size() const { return end_; }

private:
    std::filesystem::path path_;
    UniqueFd fd_; // opened on the first append
    uint64_t end_ = 0;
    std::optional<Error> error_;
};

// One column of fixed-size binary records (CPython's SpillColumn, but binary): kept in
// a small memory buffer that goes to the shared SpillStore as one chunk whenever it
// reaches its limit. The column remembers its chunks; the last, partial buffer stays
// in memory and is read from there at export, so nothing is written for a thread with
// a few samples. Memory stays at most one buffer per column, unless the store failed.
class SpillColumn {
public:
    SpillColumn(SpillStore* store, size_t recordSize, size_t bufferBytes)
        : store_(store), recordSize_(recordSize), limit_(bufferBytes) {}

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

    // Moves the buffer to the store as one chunk. On failure the buffer is kept.
    Status flush();

    size_t recordSize() const { return recordSize_; }
    uint64_t count() const { return count_; }

    struct Chunk {
        uint64_t offset;
        uint64_t bytes;
    };
    const std::vector<Chunk>& chunks() const { return chunks_; }
    const SpillStore* store() const { return store_; }
    const char* tail() const { return buf_.get(); }
    size_t tailBytes() const { return used_; }

private:
    void grow(size_t need);

    SpillStore* store_;
    size_t recordSize_;
    size_t limit_;
    // Raw storage: a std::vector would zero-fill on every resize in the hot path.
    std::unique_ptr<char[]> buf_;
    size_t used_ = 0;
    size_t capacity_ = 0;
    uint64_t count_ = 0;
    std::vector<Chunk> chunks_;
};

// Reads a column back, a chunk at a time: its chunks from the store, then its
// in-memory tail.
class SpillReader {
public:
    static Result<SpillReader> open(const SpillColumn& column);

    // Next record, or nullptr at the end (check status() then).
    const char* next() {
        if (pos_ + recordSize_ <= len_) {
            const char* p = data_ + pos_;
            pos_ += recordSize_;
            return p;
        }
        return refill() ? next() : nullptr;
    }
    const Status& status() const { return status_; }

private:
    bool refill();

    const SpillColumn* column_ = nullptr;
    size_t recordSize_ = 1;
    size_t nextChunk_ = 0;   // index into the column's chunks; == size: the tail is next
    uint64_t chunkDone_ = 0; // bytes of the current chunk already read
    bool tailDone_ = false;
    std::vector<char> buffer_;
    const char* data_ = nullptr;
    size_t pos_ = 0, len_ = 0;
    Status status_;
};

} // namespace gilscope
