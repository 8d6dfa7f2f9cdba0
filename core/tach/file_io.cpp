#include "core/tach/file_io.h"

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <unistd.h>

namespace gilscope::tach {

Status readExact(int fd, void* buffer, size_t size, uint64_t offset) {
    auto* out = static_cast<uint8_t*>(buffer);
    while (size > 0) {
        const ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return makeError(ErrorKind::Io,
                             std::string("cannot read the recording: ") + std::strerror(errno));
        }
        if (n == 0)
            return makeError(ErrorKind::Io, "the recording became shorter while reading it");
        out += n;
        size -= static_cast<size_t>(n);
        offset += static_cast<uint64_t>(n);
    }
    return {};
}

Error corrupt(std::string message) {
    return makeError(ErrorKind::CorruptFile, std::move(message));
}

std::string format(const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return n < 0 ? std::string(fmt)
                 : std::string(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

} // namespace gilscope::tach
