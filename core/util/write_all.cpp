#include "core/util/write_all.h"

#include "core/util/cancel.h"

#include <cerrno>
#include <sys/types.h>
#include <unistd.h>

namespace gilscope {

namespace {

// The one loop: `once(p, n, done)` writes up to n bytes from p, done bytes in.
template <typename Once>
bool untilAll(const void* data, size_t size, const CancelToken* cancel, Once once) {
    const auto* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < size) {
        // Checked again after every short or interrupted write (a signal ends a write to
        // a full pipe early, with what fitted).
        if (cancel && cancel->cancelled()) {
            errno = ECANCELED;
            return false;
        }
        const ssize_t n = once(p + done, size - done, done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) {
            errno = EIO;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

} // namespace

bool writeAll(int fd, const void* data, size_t size, const CancelToken* cancel) {
    return untilAll(data, size, cancel,
                    [fd](const char* p, size_t n, size_t) { return ::write(fd, p, n); });
}

bool pwriteAll(int fd, const void* data, size_t size, uint64_t offset) {
    return untilAll(data, size, nullptr, [fd, offset](const char* p, size_t n, size_t done) {
        return ::pwrite(fd, p, n, static_cast<off_t>(offset + done));
    });
}

} // namespace gilscope
