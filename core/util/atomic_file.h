#pragma once

#include "core/common/error.h"
#include "core/util/cancel.h"
#include "core/util/unique_fd.h"

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace gilscope {

struct AtomicFileOptions {
    // The writer patches bytes it wrote earlier (pwrite). A destination that is not a
    // regular file cannot take that, so its bytes are staged in an unnamed temporary
    // file and copied to it by commit().
    bool needsSeek = false;
    // commit() never replaces an existing file (a rescued recording must not destroy
    // one): it fails with EEXIST instead.
    bool noReplace = false;
};

// Writes a file that appears at its destination whole or not at all.
//
// - A regular file (or a new name): data goes to a temporary file in the destination's
//   directory, and commit() renames it over the destination. Without commit() (error,
//   cancel, exception) the temporary file is removed and an existing destination is
//   untouched. A symlink is followed: the file it names is replaced, the link stays. An
//   existing file keeps its mode, and its owner where we may set it; a new one gets
//   0666 minus the umask. The temporary name carries our pid
//   (".NAME.tmp-<pid>-XXXXXX"), so the ones a killed gilscope left are removed by the
//   next create() in that directory.
// - A character device, FIFO or socket, "-" (standard output), or the file our stdout
//   or stderr already is: written directly, with no temporary file ("direct" mode;
//   writes cannot be taken back there).
// create() fails at once when the destination cannot be written, so callers make the
// file before they start the work whose result goes into it.
class AtomicFile {
public:
    static Result<AtomicFile> create(const std::filesystem::path& destination,
                                     AtomicFileOptions options = {});

    AtomicFile() = default;
    AtomicFile(AtomicFile&& o) noexcept;
    AtomicFile& operator=(AtomicFile&& o) noexcept;
    ~AtomicFile();

    bool valid() const { return fd_.valid(); }
    int fd() const { return fd_.get(); }
    // Empty in direct mode.
    const std::filesystem::path& tempPath() const { return tempPath_; }
    const std::filesystem::path& destination() const { return destination_; }
    // Writes go straight to a device, FIFO, socket or standard output.
    bool direct() const { return direct_.valid(); }
    // The destination is (a copy of) our standard output: messages belong on stderr.
    bool isStdout() const { return isStdout_; }

    // With `cancel`: a write blocked on a slow destination (a FIFO nobody reads) ends with
    // ErrorKind::Cancelled when a signal interrupts it after the token was set.
    Status write(const void* data, size_t size, const CancelToken* cancel = nullptr);
    Status write(std::string_view s, const CancelToken* cancel = nullptr) {
        return write(s.data(), s.size(), cancel);
    }
    Status pwrite(const void* data, size_t size, uint64_t offset);
    // fsync, close, rename over the destination (direct mode: copy any staged bytes).
    Status commit();
    // Remove the temporary file now.
    void discard();

private:
    UniqueFd fd_;         // where write() goes: the temporary or staging file, or the direct fd
    UniqueFd direct_;     // direct mode: the destination itself
    bool staged_ = false; // direct mode with needsSeek: fd_ is an unnamed staging file
    bool isStdout_ = false;
    bool noReplace_ = false;
    std::filesystem::path tempPath_;
    std::filesystem::path target_; // what rename() replaces: the destination, links followed
    std::filesystem::path destination_;

    static Result<AtomicFile> openDirect(const std::filesystem::path& destination, int fd,
                                         AtomicFileOptions options);
    Status copyStaged();
};

// errno → an Error that names the path and says what a user can do.
Error ioError(int err, std::string_view what, const std::filesystem::path& path);

// Removes ".NAME.tmp-<pid>-XXXXXX" files in `dir` that belong to us (owner) and whose
// pid no longer runs: what a killed gilscope left beside its output. Returns how many.
int cleanStaleTempFiles(const std::filesystem::path& dir);

} // namespace gilscope
