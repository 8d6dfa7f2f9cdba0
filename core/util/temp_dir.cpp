#include "core/util/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <signal.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace gilscope {

namespace fs = std::filesystem;

namespace {

// remove_all() stops at the first entry another process removed first (two gilscopes
// cleaning the same stale directory): this goes on past what is already gone.
bool removeTree(const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) continue; // gone already
        if (S_ISDIR(st.st_mode))
            removeTree(it->path());
        else
            ::unlink(it->path().c_str());
    }
    return ::rmdir(dir.c_str()) == 0 || errno == ENOENT;
}

} // namespace

fs::path systemTempDir() {
    if (const char* t = std::getenv("TMPDIR"); t && *t) return fs::path(t);
    return fs::path("/tmp");
}

Result<TempDir> TempDir::create(const std::string& prefix) {
    std::string templ =
        (systemTempDir() / (prefix + "-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(templ.data()) == nullptr) {
        return makeError(errno == ENOSPC ? ErrorKind::DiskFull : ErrorKind::Io,
                         "cannot create temporary directory " + templ + ": " +
                             std::strerror(errno));
    }
    return TempDir(fs::path(templ));
}

TempDir::TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) {
    o.path_.clear();
}

TempDir& TempDir::operator=(TempDir&& o) noexcept {
    if (this != &o) {
        remove();
        path_ = std::move(o.path_);
        o.path_.clear();
    }
    return *this;
}

TempDir::~TempDir() {
    remove();
}

void TempDir::remove() {
    if (path_.empty()) return;
    removeTree(path_);
    path_.clear();
}

int cleanStaleTempDirs(const std::string& prefix) {
    int removed = 0;
    std::error_code ec;
    const std::string head = prefix + "-";
    for (const auto& entry : fs::directory_iterator(systemTempDir(), ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(head, 0) != 0) continue;
        const std::string rest = name.substr(head.size());
        const auto dash = rest.find('-');
        if (dash == std::string::npos) continue;
        char* end = nullptr;
        const long pid = std::strtol(rest.c_str(), &end, 10);
        if (end != rest.c_str() + dash || pid <= 0) continue;
        if (pid == ::getpid()) continue;
        // EPERM means it runs under another user: leave it alone.
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) continue;
        // Only our own: root must not delete another user's directory that looks alike.
        struct stat st {};
        if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::geteuid())
            continue;
        if (removeTree(entry.path())) ++removed;
    }
    return removed;
}

} // namespace gilscope

namespace gilscope {

int cleanStaleGilscopeTempDirs() {
    int removed = 0;
    for (const char* prefix : {temp_prefix::kGeckoSpill, temp_prefix::kLiveCopy,
                               temp_prefix::kRunHook, temp_prefix::kAnalysis})
        removed += cleanStaleTempDirs(prefix);
    return removed;
}

} // namespace gilscope
