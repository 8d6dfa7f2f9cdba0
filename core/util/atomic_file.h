#pragma once

#include "core/common/error.h"
#include "core/util/unique_fd.h"

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace gilscope {

// Writes a file that appears at its destination whole or not at all: data goes to a
// temporary file in the destination's directory, and commit() renames it over the
// destination. Without commit() (error, cancel, exception) the temporary file is
// removed and an existing destination is untouched.
class AtomicFile {
public:
    static Result<AtomicFile> create(const std::filesystem::path& destination);

    AtomicFile() = default;
    AtomicFile(AtomicFile&& o) noexcept;
    AtomicFile& operator=(AtomicFile&& o) noexcept;
    ~AtomicFile();

    int fd() const { return fd_.get(); }
    const std::filesystem::path& tempPath() const { return tempPath_; }
    const std::filesystem::path& destination() const { return destination_; }

    Status write(const void* data, size_t size);
    Status write(std::string_view s) { return write(s.data(), s.size()); }
    Status pwrite(const void* data, size_t size, uint64_t offset);
    // fsync, close, rename over the destination.
    Status commit();
    // Remove the temporary file now.
    void discard();

private:
    UniqueFd fd_;
    std::filesystem::path tempPath_;
    std::filesystem::path destination_;
};

// errno → an Error that names the path and says what a user can do.
Error ioError(int err, std::string_view what, const std::filesystem::path& path);

} // namespace gilscope
