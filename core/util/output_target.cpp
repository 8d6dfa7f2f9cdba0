#include "core/util/output_target.h"

#include "core/util/atomic_file.h"
#include "core/util/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <signal.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace gilscope {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxLinkHops = 40; // the kernel's own limit (ELOOP)
constexpr const char* kTempMarker = ".tmp-";

bool sameInode(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// The name a chain of symlinks ends at, whether or not that file exists yet.
fs::path followLinks(fs::path p) {
    for (int hop = 0; hop < kMaxLinkHops; ++hop) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        std::error_code ec;
        const fs::path next = fs::read_symlink(p, ec);
        if (ec) return p;
        p = next.is_absolute() ? next : p.parent_path() / next;
    }
    return p;
}

Result<UniqueFd> connectSocket(const fs::path& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.native().size() >= sizeof addr.sun_path)
        return makeError(ErrorKind::BadArguments,
                         "the socket path " + path.string() + " is too long to connect to");
    std::memcpy(addr.sun_path, path.c_str(), path.native().size());
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return ioError(errno, "cannot connect to the socket", path);
    return fd;
}

// A device, FIFO or socket, or one of our own standard streams, open for writing.
Result<UniqueFd> openSpecial(const fs::path& destination, const struct stat& st) {
    for (int stdFd : {STDOUT_FILENO, STDERR_FILENO}) {
        struct stat s {};
        if (::fstat(stdFd, &s) == 0 && sameInode(s, st)) {
            UniqueFd fd(::fcntl(stdFd, F_DUPFD_CLOEXEC, 3));
            if (!fd) return ioError(errno, "cannot write", destination);
            return fd;
        }
    }
    if (S_ISSOCK(st.st_mode)) return connectSocket(destination);
    if (S_ISBLK(st.st_mode))
        return makeError(ErrorKind::BadArguments,
                         destination.string() +
                             " is a block device; choose a regular file for the output");
    // A FIFO without a reader yet: wait for one, as a shell redirection does.
    UniqueFd fd(::open(destination.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
    if (!fd) return ioError(errno, "cannot open", destination);
    return fd;
}

bool pidRuns(long pid) {
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

} // namespace

bool sameFileAsFd(int a, int b) {
    struct stat sa {
    }, sb{};
    return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sameInode(sa, sb);
}

Result<OutputTarget> resolveOutputTarget(const fs::path& destination) {
    OutputTarget t;
    if (destination == "-") {
        t.directFd.reset(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3));
        if (!t.directFd) return ioError(errno, "cannot write to standard output", "-");
        return t;
    }
    struct stat st {};
    if (::stat(destination.c_str(), &st) != 0) {
        if (errno != ENOENT) return ioError(errno, "cannot open", destination);
        t.path = followLinks(destination); // a new file, or a dangling link's target
        return t;
    }
    if (S_ISDIR(st.st_mode))
        return makeError(ErrorKind::BadArguments,
                         destination.string() + " is a directory; give a file name");
    struct stat out {};
    const bool isStdout = ::fstat(STDOUT_FILENO, &out) == 0 && sameInode(out, st);
    if (!S_ISREG(st.st_mode) || isStdout) {
        auto fd = openSpecial(destination, st);
        if (!fd) return fd.error();
        t.directFd = std::move(fd.value());
        return t;
    }
    t.path = followLinks(destination);
    t.existing = true;
    t.uid = st.st_uid;
    t.gid = st.st_gid;
    t.mode = st.st_mode;
    return t;
}

Result<TempFile> createTempBeside(const fs::path& target, const fs::path& forMessages) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const std::string head =
        "." + target.filename().string() + kTempMarker + std::to_string(::getpid()) + "-";
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name = head;
        for (int i = 0; i < 6; ++i)
            name += kChars[rng() % (sizeof kChars - 1)];
        fs::path path = target.parent_path() / name;
        // 0666: the kernel applies the umask, as for any new file.
        UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
        if (fd) return TempFile{std::move(fd), std::move(path)};
        if (errno != EEXIST) return ioError(errno, "cannot create", forMessages);
    }
    return ioError(EEXIST, "cannot create a temporary file next to", forMessages);
}

Result<UniqueFd> openStagingFile() {
    const fs::path dir = systemTempDir();
    UniqueFd fd(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (fd) return fd;
    std::string templ = (dir / "gilscope-staging-XXXXXX").string();
    fd.reset(::mkostemp(templ.data(), O_CLOEXEC));
    if (!fd) return ioError(errno, "cannot create a staging file in", dir);
    ::unlink(templ.c_str());
    return fd;
}

int cleanStaleTempFiles(const fs::path& dir) {
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        // ".NAME.tmp-<pid>-XXXXXX"
        const std::string name = entry.path().filename().string();
        if (name.size() < 15 || name[0] != '.' || name[name.size() - 7] != '-') continue;
        const std::string rest = name.substr(0, name.size() - 7);
        const size_t marker = rest.rfind(kTempMarker);
        if (marker == std::string::npos || marker == 0) continue;
        const std::string digits = rest.substr(marker + std::strlen(kTempMarker));
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
        const long pid = std::strtol(digits.c_str(), nullptr, 10);
        if (pid <= 0 || pid == ::getpid() || pidRuns(pid)) continue;
        struct stat st {};
        if (::lstat(entry.path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
        if (S_ISDIR(st.st_mode)) { // an AtomicFolder's (--heatmap)
            std::error_code gone;
            if (fs::remove_all(entry.path(), gone) > 0 && !gone) ++removed;
            continue;
        }
        if (!S_ISREG(st.st_mode)) continue;
        if (::unlink(entry.path().c_str()) == 0) ++removed;
    }
    return removed;
}

} // namespace gilscope
