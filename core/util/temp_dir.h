#pragma once

#include "core/common/error.h"

#include <filesystem>
#include <string>

namespace gilscope {

// A private directory (mode 0700) removed with everything in it on destruction.
// Its name carries our pid, so cleanStaleTempDirs() can remove the ones left
// behind by a gilscope that was killed.
class TempDir {
public:
    static Result<TempDir> create(const std::string& prefix);

    TempDir() = default;
    TempDir(TempDir&& o) noexcept;
    TempDir& operator=(TempDir&& o) noexcept;
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir();

    const std::filesystem::path& path() const { return path_; }
    bool valid() const { return !path_.empty(); }
    void remove();

private:
    explicit TempDir(std::filesystem::path p) : path_(std::move(p)) {}
    std::filesystem::path path_;
};

// Removes <tmp>/<prefix>-<pid>-* directories that we own and whose pid no longer
// runs. Returns how many were removed.
int cleanStaleTempDirs(const std::string& prefix);
// The same for every kind of directory gilscope makes (Gecko spill, the GUI's live
// .bin copy, run's startup hook); every command calls it when it starts.
int cleanStaleGilscopeTempDirs();

std::filesystem::path systemTempDir();

} // namespace gilscope
