#include "core/util/atomic_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace gilscope {

namespace fs = std::filesystem;

Error ioError(int err, std::string_view what, const fs::path& path) {
    std::string msg = std::string(what) + " " + path.string() + ": " + std::strerror(err);
    ErrorKind kind = ErrorKind::Io;
    if (err == ENOSPC || err == EDQUOT) {
        kind = ErrorKind::DiskFull;
        msg += " (free some disk space and try again)";
    } else if (err == EACCES || err == EPERM || err == EROFS) {
        kind = ErrorKind::PermissionDenied;
        msg += " (choose a location you can write to)";
    }
    return makeError(kind, std::move(msg));
}

Result<AtomicFile> AtomicFile::create(const fs::path& destination) {
    AtomicFile f;
    f.destination_ = destination;
    fs::path dir = destination.parent_path();
    if (dir.empty()) dir = ".";
    std::string templ = (dir / ("." + destination.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkostemp(templ.data(), O_CLOEXEC);
    if (fd < 0) return ioError(errno, "cannot create a temporary file next to", destination);
    ::fchmod(fd, 0644);
    f.fd_.reset(fd);
    f.tempPath_ = templ;
    return f;
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : fd_(std::move(o.fd_)), tempPath_(std::move(o.tempPath_)),
      destination_(std::move(o.destination_)) {
    o.tempPath_.clear();
}

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
    if (this != &o) {
        discard();
        fd_ = std::move(o.fd_);
        tempPath_ = std::move(o.tempPath_);
        destination_ = std::move(o.destination_);
        o.tempPath_.clear();
    }
    return *this;
}

AtomicFile::~AtomicFile() {
    discard();
}

Status AtomicFile::write(const void* data, size_t size) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd_.get(), p, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return ioError(errno, "cannot write", destination_);
        }
        p += n;
        size -= static_cast<size_t>(n);
    }
    return {};
}

Status AtomicFile::pwrite(const void* data, size_t size, uint64_t offset) {
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::pwrite(fd_.get(), p, size, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return ioError(errno, "cannot write", destination_);
        }
        p += n;
        size -= static_cast<size_t>(n);
        offset += static_cast<uint64_t>(n);
    }
    return {};
}

Status AtomicFile::commit() {
    if (!fd_) return makeError(ErrorKind::Internal, "file already committed or discarded");
    if (::fsync(fd_.get()) != 0 && errno != EINVAL)
        return ioError(errno, "cannot flush", destination_);
    if (::close(fd_.release()) != 0) return ioError(errno, "cannot close", destination_);
    if (::rename(tempPath_.c_str(), destination_.c_str()) != 0) {
        const int err = errno;
        discard();
        return ioError(err, "cannot replace", destination_);
    }
    tempPath_.clear();
    return {};
}

void AtomicFile::discard() {
    fd_.reset();
    if (!tempPath_.empty()) {
        ::unlink(tempPath_.c_str());
        tempPath_.clear();
    }
}

} // namespace gilscope
