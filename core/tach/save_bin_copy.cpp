#include "core/tach/save_bin_copy.h"

#include "core/tach/thread_names_file.h"
#include "core/util/atomic_file.h"
#include "core/util/unique_fd.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gilscope {
namespace {

constexpr size_t kChunk = 1 << 20; // progress and cancel a few hundred times a second

Error cancelled(const std::filesystem::path& dest) {
    return makeError(ErrorKind::Cancelled, "saving " + dest.string() + " was cancelled");
}

} // namespace

Status saveBinCopy(const std::filesystem::path& source, const std::filesystem::path& dest,
                   const ProgressCallback& progress, const CancelToken* cancel,
                   AtomicFileOptions options) {
    UniqueFd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (!in || ::fstat(in.get(), &st) != 0)
        return ioError(errno, "cannot read the recording's copy", source);
    const uint64_t total = static_cast<uint64_t>(st.st_size);
    auto out = AtomicFile::create(dest, options);
    if (!out) return out.error();
    std::vector<char> buffer(kChunk);
    uint64_t done = 0;
    if (progress) progress(0, total);
    for (;;) {
        if (cancel && cancel->cancelled()) return cancelled(dest);
        const ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return ioError(errno, "cannot read the recording's copy", source);
        if (n == 0) break;
        if (auto written = out->write(buffer.data(), static_cast<size_t>(n)); !written)
            return written;
        done += static_cast<uint64_t>(n);
        if (progress) progress(done, total);
    }
    if (cancel && cancel->cancelled()) return cancelled(dest);
    const bool regularFile = !out->direct() && !out->isStdout();
    if (Status s = out->commit(); !s) return s; // without it, out's destructor removes it
    // The thread names the copy had go with it; the recording is whole without them.
    if (regularFile) (void)copyThreadNames(source, dest);
    return {};
}

} // namespace gilscope
