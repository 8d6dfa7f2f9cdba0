#include "core/gecko/spill_column.h"

#include "core/util/atomic_file.h"
#include "core/util/write_all.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace gilscope {

namespace {
constexpr size_t kReadChunk = 256 * 1024;
}

Result<uint64_t> SpillStore::append(const char* data, size_t size) {
    if (error_) return *error_;
    if (!fd_) {
        fd_.reset(::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (!fd_) {
            error_ = ioError(errno, "cannot write the profile spill file", path_);
            return *error_;
        }
    }
    const uint64_t offset = end_;
    if (!pwriteAll(fd_.get(), data, size, offset)) {
        error_ = ioError(errno, "cannot write the profile spill file", path_);
        // Take back a partial chunk, so the file holds whole chunks only.
        (void)!::ftruncate(fd_.get(), static_cast<off_t>(offset));
        return *error_;
    }
    end_ += size;
    return offset;
}

Status SpillStore::read(uint64_t offset, char* out, size_t size) const {
    size_t done = 0;
    while (done < size) {
        const ssize_t n =
            ::pread(fd_.get(), out + done, size - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ioError(errno, "cannot read the profile spill file", path_);
        if (n == 0)
            return makeError(ErrorKind::CorruptFile,
                             "the profile spill file " + path_.string() + " became shorter");
        done += static_cast<size_t>(n);
    }
    return {};
}

void SpillColumn::grow(size_t need) {
    // Grows geometrically up to the flush limit (plus one record); beyond it only when
    // the store failed and the buffer must hold everything.
    size_t cap = std::max<size_t>(capacity_ * 2, 64); // small: a thread may hold one sample
    if (!store_->error()) cap = std::min(cap, limit_ + need);
    cap = std::max(cap, used_ + need);
    auto bigger = std::make_unique<char[]>(cap);
    if (used_) std::memcpy(bigger.get(), buf_.get(), used_);
    buf_ = std::move(bigger);
    capacity_ = cap;
}

Status SpillColumn::flush() {
    if (used_ == 0) return {};
    if (store_->error()) return {}; // already reported; the data stays in memory
    auto offset = store_->append(buf_.get(), used_);
    if (!offset) return offset.error();
    chunks_.push_back({*offset, used_});
    used_ = 0;
    return {};
}

Result<SpillReader> SpillReader::open(const SpillColumn& column) {
    SpillReader r;
    r.column_ = &column;
    r.recordSize_ = column.recordSize();
    if (!column.chunks().empty())
        r.buffer_.resize(std::max<size_t>(1, kReadChunk / r.recordSize_) * r.recordSize_);
    return r;
}

bool SpillReader::refill() {
    if (!column_ || !status_.ok()) return false;
    const auto& chunks = column_->chunks();
    while (nextChunk_ < chunks.size()) {
        const SpillColumn::Chunk& c = chunks[nextChunk_];
        if (chunkDone_ == c.bytes) {
            ++nextChunk_;
            chunkDone_ = 0;
            continue;
        }
        const size_t n =
            static_cast<size_t>(std::min<uint64_t>(buffer_.size(), c.bytes - chunkDone_));
        status_ = column_->store()->read(c.offset + chunkDone_, buffer_.data(), n);
        if (!status_.ok()) return false;
        chunkDone_ += n;
        data_ = buffer_.data();
        pos_ = 0;
        len_ = n;
        return true;
    }
    if (tailDone_) return false;
    tailDone_ = true;
    data_ = column_->tail();
    pos_ = 0;
    len_ = column_->tailBytes();
    return len_ >= recordSize_;
}

} // namespace gilscope
