#include "core/util/atomic_folder.h"

#include "core/util/atomic_file.h"
#include "core/util/write_all.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace gilscope {

namespace fs = std::filesystem;

namespace {

// Whether an existing destination may be replaced: a folder of our own entries only.
Status checkReplaceable(const fs::path& dest, AtomicFolder::EntryFilter owns) {
    struct stat st {};
    if (::lstat(dest.c_str(), &st) != 0) return {}; // nothing there yet
    if (!S_ISDIR(st.st_mode))
        return makeError(ErrorKind::BadArguments,
                         dest.string() + " exists and is not a folder; choose another -o");
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dest, ec))
        if (!owns(entry.path().filename().string()))
            return makeError(ErrorKind::BadArguments,
                             dest.string() + " holds other files (" +
                                 entry.path().filename().string() +
                                 "); gilscope replaces only a folder it wrote: choose another -o");
    if (ec) return ioError(ec.value(), "cannot read", dest);
    return {};
}

} // namespace

Result<AtomicFolder> AtomicFolder::create(const fs::path& destination, EntryFilter ownsEntry) {
    fs::path dest = destination;
    while (!dest.empty() && dest.filename().empty()) // "out/" names "out"
        dest = dest.parent_path();
    if (dest.empty()) return makeError(ErrorKind::BadArguments, "no output folder given");
    if (auto s = checkReplaceable(dest, ownsEntry); !s) return s.error();
    const fs::path parent = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
    cleanStaleTempFiles(parent); // what a killed gilscope left there
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static constexpr char kChars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name =
            "." + dest.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-";
        for (int i = 0; i < 6; ++i)
            name += kChars[rng() % (sizeof kChars - 1)];
        const fs::path temp = parent / name;
        if (::mkdir(temp.c_str(), 0777) == 0) {
            AtomicFolder f;
            f.temp_ = temp;
            f.destination_ = dest;
            f.owns_ = ownsEntry;
            return f;
        }
        if (errno != EEXIST) return ioError(errno, "cannot create a folder next to", dest);
    }
    return ioError(EEXIST, "cannot create a temporary folder next to", dest);
}

AtomicFolder::AtomicFolder(AtomicFolder&& o) noexcept
    : temp_(std::exchange(o.temp_, {})), destination_(std::move(o.destination_)), owns_(o.owns_) {
}

AtomicFolder& AtomicFolder::operator=(AtomicFolder&& o) noexcept {
    if (this != &o) {
        discard();
        temp_ = std::exchange(o.temp_, {});
        destination_ = std::move(o.destination_);
        owns_ = o.owns_;
    }
    return *this;
}

AtomicFolder::~AtomicFolder() {
    discard();
}

void AtomicFolder::discard() {
    if (temp_.empty()) return;
    std::error_code ec;
    fs::remove_all(temp_, ec);
    temp_.clear();
}

Status AtomicFolder::writeFile(std::string_view name, std::string_view contents) {
    const fs::path path = temp_ / std::string(name);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return ioError(errno, "cannot create", destination_ / std::string(name));
    Status s;
    if (!writeAll(fd, contents.data(), contents.size()) || ::fsync(fd) != 0)
        s = ioError(errno, "cannot write", destination_ / std::string(name));
    if (::close(fd) != 0 && s) s = ioError(errno, "cannot write", destination_ / std::string(name));
    return s;
}

Status AtomicFolder::commit() {
    if (temp_.empty()) return makeError(ErrorKind::Internal, "folder already committed");
    if (::rename(temp_.c_str(), destination_.c_str()) == 0) {
        temp_.clear();
        return {};
    }
    if (errno != EEXIST && errno != ENOTEMPTY) return ioError(errno, "cannot write", destination_);
    // An earlier output is there: checked again (it may have changed while we recorded),
    // swapped with ours in one step, then removed from where ours was.
    if (auto s = checkReplaceable(destination_, owns_); !s) return s.error();
    if (::renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, destination_.c_str(), RENAME_EXCHANGE) != 0)
        return ioError(errno, "cannot replace", destination_);
    discard(); // temp_ now names the earlier output
    return {};
}

} // namespace gilscope
