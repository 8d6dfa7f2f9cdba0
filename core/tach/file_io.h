#pragma once

#include "core/common/error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace gilscope::tach {

// pread() until `size` bytes are read; short files and errors become an Error.
Status readExact(int fd, void* buffer, size_t size, uint64_t offset);

// A file-format error: CPython's wording, ErrorKind::CorruptFile.
Error corrupt(std::string message);

// printf into a std::string (messages follow CPython's PyErr_Format strings).
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace gilscope::tach
