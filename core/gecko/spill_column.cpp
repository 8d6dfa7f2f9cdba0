#include "core/gecko/spill_column.h"

#include "core/util/atomic_file.h"
#include "core/util/unique_fd.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace gilscope {

namespace {
constexpr size_t kReadChunk = 256 * 1024;
}

void SpillColumn::grow(size_t need) {
    // Grows geometrically up to the flush limit (plus one record), never beyond.
    size_t cap = std::max<size_t>(capacity_ * 2, 256);
    cap = std::min(cap, limit_ + need);
    cap = std::max(cap, used_ + need);
    auto bigger = std::make_unique<char[]>(cap);
    if (used_) std::memcpy(bigger.get(), buf_.get(), used_);
    buf_ = std::move(bigger);
    capacity_ = cap;
}

Status SpillColumn::flush() {
    // Opened per flush, as CPython does: thousands of threads must not hold
    // thousands of descriptors, and flushes are rare at the default buffer size.
    UniqueFd fd(::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
    if (!fd) return ioError(errno, "cannot write the profile spill file", path_);
    const char* p = buf_.get();
    size_t left = used_;
    while (left > 0) {
        const ssize_t n = ::write(fd.get(), p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return ioError(errno, "cannot write the profile spill file", path_);
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    used_ = 0;
    return {};
}

Result<SpillReader> SpillReader::open(const SpillColumn& column) {
    SpillReader r;
    r.fd_ = ::open(column.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (r.fd_ < 0) return ioError(errno, "cannot read the profile spill file", column.path());
    r.path_ = column.path();
    r.recordSize_ = column.recordSize();
    r.chunk_.resize((kReadChunk / r.recordSize_ + 1) * r.recordSize_);
    return r;
}

SpillReader::SpillReader(SpillReader&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), recordSize_(o.recordSize_),
      chunk_(std::move(o.chunk_)), pos_(o.pos_), len_(o.len_), status_(o.status_) {
}

SpillReader& SpillReader::operator=(SpillReader&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(o.fd_, -1);
        path_ = std::move(o.path_);
        recordSize_ = o.recordSize_;
        chunk_ = std::move(o.chunk_);
        pos_ = o.pos_;
        len_ = o.len_;
        status_ = o.status_;
    }
    return *this;
}

SpillReader::~SpillReader() {
    if (fd_ >= 0) ::close(fd_);
}

bool SpillReader::refill() {
    if (fd_ < 0 || !status_.ok()) return false;
    // Keep a partial record's bytes and read after them.
    const size_t keep = len_ - pos_;
    std::memmove(chunk_.data(), chunk_.data() + pos_, keep);
    pos_ = 0;
    len_ = keep;
    while (len_ < chunk_.size()) {
        const ssize_t n = ::read(fd_, chunk_.data() + len_, chunk_.size() - len_);
        if (n < 0) {
            if (errno == EINTR) continue;
            status_ = ioError(errno, "cannot read the profile spill file", path_);
            return false;
        }
        if (n == 0) break;
        len_ += static_cast<size_t>(n);
        if (len_ >= recordSize_) break;
    }
    if (len_ < recordSize_) {
        if (len_ != 0)
            status_ = makeError(ErrorKind::CorruptFile, "the profile spill file " + path_.string() +
                                                            " ends with a partial record");
        ::close(fd_);
        fd_ = -1;
        return false;
    }
    return true;
}

} // namespace gilscope
