#include "core/tach/byte_window.h"

#include "core/tach/file_io.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace gilscope::tach {

void ByteWindow::DCtxFree::operator()(ZSTD_DCtx* p) const {
    ZSTD_freeDCtx(p);
}

ByteWindow::ByteWindow(int fd, uint64_t begin, uint64_t end, Kind kind, size_t capacity)
    : fd_(fd), begin_(begin), end_offset_(end), fileOffset_(begin), kind_(kind) {
    // A raw window never needs more than its range (small files, tables).
    if (kind_ == Kind::Raw)
        capacity =
            static_cast<size_t>(std::min<uint64_t>(capacity, std::max<uint64_t>(end - begin, 64)));
    buf_.resize(capacity);
    if (kind_ == Kind::Zstd) inBuf_.resize(ZSTD_DStreamInSize());
}

ByteWindow::ByteWindow(ByteWindow&&) noexcept = default;
ByteWindow& ByteWindow::operator=(ByteWindow&&) noexcept = default;
ByteWindow::~ByteWindow() = default;

Status ByteWindow::rewind() {
    fileOffset_ = begin_;
    pos_ = end_ = 0;
    consumed_ = 0;
    inPos_ = inEnd_ = 0;
    frameOpen_ = false;
    if (kind_ == Kind::Zstd) {
        if (!dctx_) dctx_.reset(ZSTD_createDCtx());
        if (!dctx_)
            return makeError(ErrorKind::Internal, "cannot create a zstd decompression context");
        ZSTD_DCtx_reset(dctx_.get(), ZSTD_reset_session_only);
    }
    return {};
}

Result<size_t> ByteWindow::refill(size_t n) {
    if (n > buf_.size()) n = buf_.size();
    if (pos_ > 0) { // slide the unread tail to the front
        std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
        end_ -= pos_;
        pos_ = 0;
    }
    while (end_ < n) {
        auto got = produce(buf_.data() + end_, buf_.size() - end_);
        if (!got) return got.error();
        if (*got == 0) break;
        end_ += *got;
    }
    return std::min(n, end_);
}

Result<size_t> ByteWindow::produce(uint8_t* out, size_t room) {
    if (kind_ == Kind::Zstd) return produceZstd(out, room);
    const uint64_t left = end_offset_ - fileOffset_;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left, room));
    if (take == 0) return size_t{0};
    if (auto s = readExact(fd_, out, take, fileOffset_); !s) return s.error();
    fileOffset_ += take;
    return take;
}

Result<size_t> ByteWindow::produceZstd(uint8_t* out, size_t room) {
    if (!dctx_) {
        if (auto s = rewind(); !s) return s.error();
    }
    ZSTD_outBuffer output{out, room, 0};
    while (output.pos == 0) {
        if (inPos_ == inEnd_) {
            const uint64_t left = end_offset_ - fileOffset_;
            const size_t take = static_cast<size_t>(std::min<uint64_t>(left, inBuf_.size()));
            if (take == 0) {
                if (frameOpen_) return corrupt("Incomplete zstd frame: data may be truncated");
                return size_t{0};
            }
            if (auto s = readExact(fd_, inBuf_.data(), take, fileOffset_); !s) return s.error();
            fileOffset_ += take;
            inPos_ = 0;
            inEnd_ = take;
        }
        ZSTD_inBuffer input{inBuf_.data(), inEnd_, inPos_};
        const size_t rc = ZSTD_decompressStream(dctx_.get(), &output, &input);
        inPos_ = input.pos;
        if (ZSTD_isError(rc))
            return corrupt(format("zstd decompression error: %s", ZSTD_getErrorName(rc)));
        frameOpen_ = rc != 0;
    }
    return output.pos;
}

} // namespace gilscope::tach
