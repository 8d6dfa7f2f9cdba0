#include "core/tach/record_stream.h"

#include "core/tach/file_io.h"
#include "core/tach/tach_format.h"

#include <zstd.h>

namespace gilscope::tach {

void RecordStream::CCtxFree::operator()(ZSTD_CCtx* p) const {
    ZSTD_freeCCtx(p);
}

RecordStream::RecordStream(AtomicFile file, bool zstd)
    : file_(std::move(file)), zstd_(zstd), buffer_(kWriteBufferSize) {
    if (zstd_) {
        compressed_.resize(kWriteBufferSize);
        cctx_.reset(ZSTD_createCCtx());
        if (cctx_) ZSTD_CCtx_setParameter(cctx_.get(), ZSTD_c_compressionLevel, kZstdLevel);
    }
}

RecordStream::RecordStream(RecordStream&&) noexcept = default;
RecordStream::~RecordStream() = default;

Result<uint8_t*> RecordStream::reserve(size_t size) {
    if (used_ + size > buffer_.size()) {
        if (auto s = flush(Flush::Continue); !s) return s.error();
        if (size > buffer_.size()) buffer_.resize(size); // one oversized record (never in practice)
    }
    return buffer_.data() + used_;
}

Status RecordStream::writeRaw(const void* data, size_t size) {
    if (auto s = file_.write(data, size); !s) return s;
    position_ += size;
    return {};
}

Status RecordStream::flush(Flush how) {
    if (!zstd_) {
        Status s = writeRaw(buffer_.data(), used_);
        used_ = 0;
        return s;
    }
    if (!cctx_) return makeError(ErrorKind::Internal, "cannot create a zstd compression context");
    ZSTD_inBuffer input{buffer_.data(), used_, 0};
    const ZSTD_EndDirective mode = how == Flush::End      ? ZSTD_e_end
                                   : how == Flush::Blocks ? ZSTD_e_flush
                                                          : ZSTD_e_continue;
    for (;;) {
        ZSTD_outBuffer output{compressed_.data(), compressed_.size(), 0};
        const size_t rc = ZSTD_compressStream2(cctx_.get(), &output, &input, mode);
        if (ZSTD_isError(rc))
            return makeError(ErrorKind::Internal,
                             format("zstd compression error: %s", ZSTD_getErrorName(rc)));
        if (auto s = writeRaw(compressed_.data(), output.pos); !s) return s;
        const bool done = how == Flush::Continue ? input.pos == input.size : rc == 0;
        if (done) break;
    }
    used_ = 0;
    return {};
}

Status RecordStream::endRecords() {
    return flush(Flush::End);
}

Status RecordStream::flushRecords() {
    return flush(Flush::Blocks);
}

} // namespace gilscope::tach
