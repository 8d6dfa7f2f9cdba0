#include "core/heatmap/source_text.h"

#include "core/analysis/line_heat.h"
#include "core/target/attached_process.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>

namespace gilscope::heatmap {

namespace {

// A file of this machine's, for a recording opened from a file: regular files only, and
// never a FIFO's open that waits for a writer.
Result<UniqueFd> openHostFile(const std::string& file) {
    UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!fd) {
        if (errno == ENOENT || errno == ENOTDIR)
            return makeError(ErrorKind::Io, file + " does not exist on this machine");
        if (errno == EACCES || errno == EPERM)
            return makeError(ErrorKind::PermissionDenied, file + " is not readable by you");
        return makeError(ErrorKind::Io, file + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return makeError(ErrorKind::Io, file + " is not a regular file");
    return fd;
}

} // namespace

SourceText readSource(const std::string& file, const target::AttachedProcess* target) {
    SourceText t;
    if (!isSourceFile(file) || file.find('\0') != std::string::npos) {
        t.why = "not a file (built-in or generated code)";
        return t;
    }
    auto fd = target ? target->files().openFile(file) : openHostFile(file);
    Result<std::string> bytes = makeError(ErrorKind::Io, "");
    struct stat st {};
    if (fd) {
        if (::fstat(fd->get(), &st) != 0)
            bytes = makeError(ErrorKind::Io, file + ": " + std::strerror(errno));
        else if (uint64_t(st.st_size) > kMaxSourceBytes)
            bytes = makeError(ErrorKind::Io, file + " is larger than 8 MiB");
        else if (auto all = target::readAll(fd->get(), kMaxSourceBytes + 1);
                 all && all->size() <= kMaxSourceBytes)
            bytes = std::move(*all);
        else
            bytes =
                makeError(ErrorKind::Io, file + (all ? " is larger than 8 MiB" : ": read failed"));
    }
    if (!fd || !bytes) {
        t.why = "source not shown: " + (fd ? bytes.error() : fd.error()).message;
        return t;
    }
    t.ok = true;
    t.bytes = std::move(*bytes);
    t.modified = double(st.st_mtime); // whole seconds: the start time is in clock ticks
    t.readFrom =
        target ? file + " (in process " + std::to_string(target->pid()) + "'s root)" : file;
    return t;
}

void SourceCache::fetch(const std::string& file) {
    {
        std::lock_guard lock(mutex_);
        if (texts_.count(file)) return;
    }
    SourceText t = readSource(file, target_.get()); // outside the lock: reads can be slow
    std::lock_guard lock(mutex_);
    texts_.try_emplace(file, std::move(t));
}

SourceText SourceCache::get(const std::string& file) {
    fetch(file);
    std::lock_guard lock(mutex_);
    return texts_.at(file);
}

} // namespace gilscope::heatmap
