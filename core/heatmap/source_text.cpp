#include "core/heatmap/source_text.h"

#include "core/analysis/line_heat.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gilscope::heatmap {

namespace {

constexpr off_t kMaxSourceBytes = 8 << 20;

// Reads a regular file whole; false with *why set otherwise.
bool readWhole(const std::string& path, std::string* bytes, std::string* why) {
    // O_NONBLOCK: a FIFO planted at a source's path must not hang the writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *why = std::strerror(errno);
        return false;
    }
    struct stat st {};
    bool ok = ::fstat(fd, &st) == 0;
    if (!ok) *why = std::strerror(errno);
    if (ok && !S_ISREG(st.st_mode)) {
        ok = false;
        *why = "not a regular file";
    }
    if (ok && st.st_size > kMaxSourceBytes) {
        ok = false;
        *why = "larger than 8 MiB";
    }
    char buf[65536];
    while (ok) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ok = false;
            *why = std::strerror(errno);
        } else if (n == 0) {
            break;
        } else if (bytes->size() + size_t(n) > size_t(kMaxSourceBytes)) {
            ok = false;
            *why = "larger than 8 MiB";
        } else {
            bytes->append(buf, size_t(n));
        }
    }
    ::close(fd);
    if (!ok) bytes->clear();
    return ok;
}

} // namespace

SourceText readSource(const std::string& file, int pid) {
    SourceText t;
    if (!isSourceFile(file)) {
        t.why = "not a file (built-in or generated code)";
        return t;
    }
    if (pid > 0) {
        const std::string inTarget = file.front() == '/'
                                         ? "/proc/" + std::to_string(pid) + "/root" + file
                                         : "/proc/" + std::to_string(pid) + "/cwd/" + file;
        std::string why;
        if (readWhole(inTarget, &t.bytes, &why)) {
            t.ok = true;
            t.readFrom = inTarget;
            return t;
        }
        t.why = "cannot read it in the target's filesystem (" + why + ")";
    }
    std::string why;
    if (readWhole(file, &t.bytes, &why)) {
        t.ok = true;
        t.readFrom = file;
        t.why.clear();
        return t;
    }
    t.why += std::string(t.why.empty() ? "" : ", nor ") + "on this machine (" + why + ")";
    return t;
}

void SourceCache::fetch(const std::string& file) {
    {
        std::lock_guard lock(mutex_);
        if (texts_.count(file)) return;
    }
    SourceText t = readSource(file, pid_); // outside the lock: reads can be slow
    std::lock_guard lock(mutex_);
    texts_.try_emplace(file, std::move(t));
}

SourceText SourceCache::get(const std::string& file) {
    fetch(file);
    std::lock_guard lock(mutex_);
    return texts_.at(file);
}

} // namespace gilscope::heatmap
