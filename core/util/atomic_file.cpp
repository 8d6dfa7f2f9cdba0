#include "core/util/atomic_file.h"

#include "core/util/output_target.h"
#include "core/util/write_all.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gilscope {

namespace fs = std::filesystem;

Error ioError(int err, std::string_view what, const fs::path& path) {
    std::string msg = std::string(what) + " " + path.string() + ": " + std::strerror(err);
    ErrorKind kind = ErrorKind::Io;
    if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
        kind = ErrorKind::DiskFull;
        msg += err == EFBIG ? " (the file size limit was reached)"
                            : " (free some disk space and try again)";
    } else if (err == EACCES || err == EPERM || err == EROFS) {
        kind = ErrorKind::PermissionDenied;
        msg += " (choose a location you can write to)";
    } else if (err == ENOENT) {
        msg += " (its directory does not exist)";
    }
    return makeError(kind, std::move(msg));
}

Result<AtomicFile> AtomicFile::openDirect(const fs::path& destination, int fd,
                                          AtomicFileOptions options) {
    AtomicFile f;
    f.destination_ = destination;
    f.direct_.reset(fd);
    f.isStdout_ = sameFileAsFd(fd, STDOUT_FILENO);
    if (!options.needsSeek) {
        f.fd_.reset(::dup(fd));
        if (!f.fd_) return ioError(errno, "cannot write", destination);
        return f;
    }
    auto staging = openStagingFile();
    if (!staging) return staging.error();
    f.fd_ = std::move(staging.value());
    f.staged_ = true;
    return f;
}

Result<AtomicFile> AtomicFile::create(const fs::path& destination, AtomicFileOptions options) {
    auto target = resolveOutputTarget(destination);
    if (!target) return target.error();
    OutputTarget& t = target.value();
    if (t.directFd.valid()) return openDirect(destination, t.directFd.release(), options);

    AtomicFile f;
    f.destination_ = destination;
    f.target_ = t.path;
    f.noReplace_ = options.noReplace;
    fs::path dir = t.path.parent_path();
    if (dir.empty()) dir = ".";
    cleanStaleTempFiles(dir);
    auto temp = createTempBeside(t.path, destination);
    if (!temp) return temp.error();
    f.fd_ = std::move(temp->fd);
    f.tempPath_ = std::move(temp->path);
    if (t.existing) {
        // Keep the replaced file's owner (only root may give it away) and mode.
        if (t.uid != ::geteuid() || t.gid != ::getegid())
            (void)!::fchown(f.fd_.get(), t.uid, t.gid);
        ::fchmod(f.fd_.get(), t.mode & 07777);
    }
    return f;
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : fd_(std::move(o.fd_)), direct_(std::move(o.direct_)), staged_(o.staged_),
      isStdout_(o.isStdout_), noReplace_(o.noReplace_), tempPath_(std::move(o.tempPath_)),
      target_(std::move(o.target_)), destination_(std::move(o.destination_)) {
    o.tempPath_.clear();
}

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
    if (this != &o) {
        discard();
        fd_ = std::move(o.fd_);
        direct_ = std::move(o.direct_);
        staged_ = o.staged_;
        isStdout_ = o.isStdout_;
        noReplace_ = o.noReplace_;
        tempPath_ = std::move(o.tempPath_);
        target_ = std::move(o.target_);
        destination_ = std::move(o.destination_);
        o.tempPath_.clear();
    }
    return *this;
}

AtomicFile::~AtomicFile() {
    discard();
}

Status AtomicFile::write(const void* data, size_t size, const CancelToken* cancel) {
    if (writeAll(fd_.get(), data, size, cancel)) return {};
    if (errno == ECANCELED) return makeError(ErrorKind::Cancelled, "writing cancelled");
    return ioError(errno, "cannot write", destination_);
}

Status AtomicFile::pwrite(const void* data, size_t size, uint64_t offset) {
    if (!pwriteAll(fd_.get(), data, size, offset))
        return ioError(errno, "cannot write", destination_);
    return {};
}

Status AtomicFile::copyStaged() {
    std::vector<char> buf(1 << 20);
    uint64_t offset = 0;
    for (;;) {
        const ssize_t n = ::pread(fd_.get(), buf.data(), buf.size(), static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ioError(errno, "cannot read back the staged output for", destination_);
        if (n == 0) return {};
        if (!writeAll(direct_.get(), buf.data(), static_cast<size_t>(n)))
            return ioError(errno, "cannot write", destination_);
        offset += static_cast<uint64_t>(n);
    }
}

Status AtomicFile::commit() {
    if (!fd_) return makeError(ErrorKind::Internal, "file already committed or discarded");
    if (direct()) {
        // A staging file (needsSeek) goes to the destination only now.
        Status s = staged_ ? copyStaged() : Status{};
        fd_.reset();
        if (!s) {
            direct_.reset();
            return s;
        }
        if (::close(direct_.release()) != 0 && errno != EINTR)
            return ioError(errno, "cannot write", destination_);
        return {};
    }
    if (::fsync(fd_.get()) != 0 && errno != EINVAL)
        return ioError(errno, "cannot flush", destination_);
    if (::close(fd_.release()) != 0) return ioError(errno, "cannot close", destination_);
    const int renamed = noReplace_ ? ::renameat2(AT_FDCWD, tempPath_.c_str(), AT_FDCWD,
                                                 target_.c_str(), RENAME_NOREPLACE)
                                   : ::rename(tempPath_.c_str(), target_.c_str());
    if (renamed != 0) {
        const int err = errno;
        discard();
        return ioError(err, "cannot replace", destination_);
    }
    tempPath_.clear();
    return {};
}

void AtomicFile::discard() {
    fd_.reset();
    direct_.reset();
    if (!tempPath_.empty()) {
        ::unlink(tempPath_.c_str());
        tempPath_.clear();
    }
}

} // namespace gilscope
