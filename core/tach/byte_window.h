#pragma once

#include "core/common/error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace gilscope::tach {

// A bounded sliding window over a byte range of a file, optionally a zstd stream that
// is decompressed as the window advances. Callers ask for the next few bytes with
// ensure() and step past them with consume(); the window never holds more than its
// capacity, whatever the file's size.
class ByteWindow {
public:
    enum class Kind { Raw, Zstd };
    ByteWindow(int fd, uint64_t begin, uint64_t end, Kind kind, size_t capacity);
    ByteWindow(ByteWindow&&) noexcept;
    ByteWindow& operator=(ByteWindow&&) noexcept;
    ~ByteWindow();

    // Starts over from the first byte.
    Status rewind();

    // Makes min(n, capacity) bytes available at data() unless the stream ends first;
    // returns how many are available (less than n only at the end of the stream).
    Result<size_t> ensure(size_t n) {
        if (end_ - pos_ >= n) return n;
        return refill(n);
    }
    const uint8_t* data() const { return buf_.data() + pos_; }
    void consume(size_t n) {
        pos_ += n;
        consumed_ += n;
    }
    // Bytes of the (decompressed) stream consumed so far.
    uint64_t consumed() const { return consumed_; }
    size_t capacity() const { return buf_.size(); }

private:
    Result<size_t> refill(size_t n);
    Result<size_t> produce(uint8_t* out, size_t room); // appends stream bytes, 0 at the end
    Result<size_t> produceZstd(uint8_t* out, size_t room);

    int fd_ = -1;
    uint64_t begin_ = 0, end_offset_ = 0, fileOffset_ = 0;
    Kind kind_ = Kind::Raw;
    std::vector<uint8_t> buf_;
    size_t pos_ = 0, end_ = 0;
    uint64_t consumed_ = 0;
    // zstd state: compressed input staged in inBuf_[inPos_, inEnd_).
    struct DCtxFree {
        void operator()(ZSTD_DCtx* p) const;
    };
    std::unique_ptr<ZSTD_DCtx, DCtxFree> dctx_;
    std::vector<uint8_t> inBuf_;
    size_t inPos_ = 0, inEnd_ = 0;
    bool frameOpen_ = false; // inside a zstd frame (so EOF now means truncation)
};

} // namespace gilscope::tach
