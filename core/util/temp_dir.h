#pragma once

#include "core/common/error.h"

#include <filesystem>
#include <string>

namespace gilscope {

// The prefix of each kind of directory gilscope makes, spelled here only: what creates
// one and what cleans the stale ones up name the same constant.
namespace temp_prefix {
inline constexpr char kGeckoSpill[] = "gilscope-gecko";  // the Gecko collector's spill.bin
inline constexpr char kLiveCopy[] = "gilscope-live";     // a recording's private .bin copy
inline constexpr char kRunHook[] = "gilscope-run";       // run's sitecustomize.py
inline constexpr char kAnalysis[] = "gilscope-analysis"; // the analysis views' sample store
} // namespace temp_prefix

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
// The same for every kind in temp_prefix; every command calls it when it starts.
int cleanStaleGilscopeTempDirs();

std::filesystem::path systemTempDir();

} // namespace gilscope
