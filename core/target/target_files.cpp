#include "core/target/target_files.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace gilscope::target {

namespace {

constexpr uint64_t kFileCaps = (uint64_t(1) << CAP_DAC_OVERRIDE) |
                               (uint64_t(1) << CAP_DAC_READ_SEARCH) | (uint64_t(1) << CAP_FOWNER);

// What the identity thread found.
struct Opened {
    UniqueFd fd;
    int err = 0;
    const char* what = nullptr; // a refusal that is not an errno
    bool exact = false;         // the kernel checked with the target's own ids
};

// Takes the target's filesystem identity on this thread only: raw syscalls, because
// glibc's setgroups/setfsuid wrappers would apply them to every thread of gilscope.
bool becomeTarget(const ProcessCredentials& c) {
    bool exact = true;
    std::vector<gid_t> gids(c.groups.begin(), c.groups.end());
    if (::syscall(SYS_setgroups, gids.size(), gids.data()) != 0) {
        // Without CAP_SETGID: exact only when we already have the target's groups.
        std::vector<gid_t> ours(size_t(std::max(0, ::getgroups(0, nullptr))));
        if (!ours.empty())
            ours.resize(size_t(std::max(0, ::getgroups(int(ours.size()), ours.data()))));
        std::sort(ours.begin(), ours.end());
        std::sort(gids.begin(), gids.end());
        exact = ours == gids;
    }
    ::syscall(SYS_setfsgid, c.fsgid);
    exact = exact && ::syscall(SYS_setfsgid, -1) == long(c.fsgid); // -1: read, no change
    ::syscall(SYS_setfsuid, c.fsuid);
    exact = exact && ::syscall(SYS_setfsuid, -1) == long(c.fsuid);
    // The file capabilities: only those the target holds itself, in our user namespace.
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) == 0) {
        uint64_t eff = uint64_t(data[1].effective) << 32 | data[0].effective;
        const uint64_t keep = c.sameUserNamespace ? c.capEffective & kFileCaps : 0;
        eff = (eff & ~kFileCaps) | (eff & keep);
        data[0].effective = uint32_t(eff);
        data[1].effective = uint32_t(eff >> 32);
        if (::syscall(SYS_capset, &header, data) != 0) exact = false;
    } else {
        exact = false;
    }
    return exact;
}

// The mode bits, for when the kernel could not check with the target's ids.
bool modeAllowsRead(const struct stat& st, const ProcessCredentials& c) {
    if (c.mayReadAnyFile()) return true;
    if (st.st_uid == c.fsuid) return (st.st_mode & S_IRUSR) != 0;
    if (c.inGroup(st.st_gid)) return (st.st_mode & S_IRGRP) != 0;
    return (st.st_mode & S_IROTH) != 0;
}

void openAsTarget(int dirFd, const std::string& path, uint64_t resolve,
                  const ProcessCredentials& creds, Opened& out) {
    out.exact = becomeTarget(creds);
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = resolve | RESOLVE_NO_MAGICLINKS;
    const long pathFd = ::syscall(SYS_openat2, dirFd, path.c_str(), &how, sizeof how);
    if (pathFd < 0) {
        out.err = errno;
        return;
    }
    UniqueFd looked{int(pathFd)};
    struct stat st {};
    if (::fstat(looked.get(), &st) != 0) {
        out.err = errno;
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        out.what = "not a regular file";
        return;
    }
    if (!out.exact && !modeAllowsRead(st, creds)) {
        out.err = EACCES;
        return;
    }
    // Reopening the very inode looked at: no second path walk that a swap could redirect.
    // The kernel checks read permission again, with this thread's (the target's) ids.
    const std::string self = "/proc/self/fd/" + std::to_string(looked.get());
    out.fd = UniqueFd(::open(self.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!out.fd) out.err = errno;
}

std::string describe(const Opened& o, std::string_view path, const ProcessCredentials& c) {
    const std::string name(path);
    if (o.what) return name + " is " + o.what;
    switch (o.err) {
    case ENOENT:
    case ENOTDIR:
        return name + " does not exist in the process's root";
    case EACCES:
    case EPERM:
        return name + " is not readable by the process's user (uid " + std::to_string(c.fsuid) +
               ")";
    case ELOOP:
    case EXDEV:
        return name + " is outside the process's root";
    default:
        return name + ": " + std::strerror(o.err);
    }
}

} // namespace

Result<TargetFiles> TargetFiles::open(const ProcDir& proc) {
    // A root or identity that cannot be read (no right to, or a zombie) is not an error
    // here: the memory read says why far better. Every open is then refused.
    UniqueFd root = proc.openAt("root", O_PATH | O_DIRECTORY);
    const int rootErrno = root ? 0 : errno;
    auto own = proc.duplicate();
    if (!own) return own.error();
    TargetFiles files(std::move(*own), std::move(root));
    files.rootErrno_ = rootErrno;
    files.refresh();
    return files;
}

void TargetFiles::refresh() const {
    auto status = proc_.read("status", 1 << 16);
    if (!status) return; // ended: keep what was seen last
    auto creds = credentialsFromStatus(*status);
    if (!creds) return;
    const auto theirs = proc_.readLink("ns/user");
    char ours[256];
    const ssize_t n = ::readlink("/proc/self/ns/user", ours, sizeof ours);
    creds->sameUserNamespace = theirs && n > 0 && *theirs == std::string_view(ours, size_t(n));
    // The cwd as a path inside the root: readlink shows it from our root, and the root
    // from ours too ("/" when the target shares it or is in a mount namespace of its own).
    std::string cwd;
    const auto rootPath = proc_.readLink("root"), cwdPath = proc_.readLink("cwd");
    if (rootPath && cwdPath && !cwdPath->empty() && cwdPath->front() == '/') {
        if (*rootPath == "/")
            cwd = *cwdPath;
        else if (*cwdPath == *rootPath)
            cwd = "/";
        else if (cwdPath->rfind(*rootPath + "/", 0) == 0)
            cwd = cwdPath->substr(rootPath->size());
    }
    std::lock_guard lock(mutex_);
    creds_ = std::move(creds);
    cwdInRoot_ = std::move(cwd);
}

Result<UniqueFd> TargetFiles::openFile(std::string_view path) const {
    if (path.empty() || path.find('\0') != std::string_view::npos || path.size() >= 4096)
        return makeError(ErrorKind::BadArguments, "not a file name");
    if (!root_)
        return makeError(ErrorKind::PermissionDenied,
                         std::string(path) + ": the process's root cannot be opened (" +
                             std::strerror(rootErrno_) + ")");
    refresh();
    ProcessCredentials creds;
    std::string full(path);
    {
        std::lock_guard lock(mutex_);
        if (!creds_)
            return makeError(ErrorKind::PermissionDenied,
                             std::string(path) + ": the process's user cannot be read");
        creds = *creds_;
        if (full.front() != '/') {
            if (cwdInRoot_.empty())
                return makeError(ErrorKind::Io, std::string(path) +
                                                    " is relative to a working directory "
                                                    "outside the process's root");
            full = cwdInRoot_ + (cwdInRoot_.back() == '/' ? "" : "/") + full;
        }
    }
    Opened opened;
    std::thread identity([&] { openAsTarget(root_.get(), full, RESOLVE_IN_ROOT, creds, opened); });
    identity.join();
    if (!opened.fd) {
        const bool denied = opened.err == EACCES || opened.err == EPERM;
        return makeError(denied ? ErrorKind::PermissionDenied : ErrorKind::Io,
                         describe(opened, path, creds));
    }
    return std::move(opened.fd);
}

Result<std::string> TargetFiles::readFile(std::string_view path, size_t maxBytes) const {
    auto fd = openFile(path);
    if (!fd) return fd.error();
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0)
        return makeError(ErrorKind::Io, std::string(path) + ": " + std::strerror(errno));
    const auto tooLarge = [&] {
        return makeError(ErrorKind::Io, std::string(path) + " is larger than " +
                                            std::to_string(maxBytes >> 20) + " MiB");
    };
    if (uint64_t(st.st_size) > maxBytes) return tooLarge();
    auto bytes = readAll(fd->get(), maxBytes + 1); // a file that grew since the fstat
    if (!bytes) return makeError(ErrorKind::Io, std::string(path) + ": " + std::strerror(errno));
    if (bytes->size() > maxBytes) return tooLarge();
    return std::move(*bytes);
}

} // namespace gilscope::target
