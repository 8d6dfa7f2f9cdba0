#pragma once

#include <cstddef>
#include <cstdint>

namespace gilscope {

class CancelToken;

// write() until all `size` bytes are written, retrying on EINTR and short writes; false
// with errno set on failure (EIO when the file takes no more bytes and says nothing).
// With `cancel`: gives up (errno ECANCELED) once the token is set, checked before every
// write() call; a signal that sets it also ends a write() stuck on a full FIFO or pipe, so
// that a second Ctrl-C ends a write to a reader that stopped reading.
bool writeAll(int fd, const void* data, size_t size, const CancelToken* cancel = nullptr);

// The same with pwrite() at `offset` (the file offset is left alone).
bool pwriteAll(int fd, const void* data, size_t size, uint64_t offset);

} // namespace gilscope
