#pragma once

#include "core/common/error.h"

#include <filesystem>
#include <string_view>

namespace gilscope {

// A folder of output files that appears at its destination whole or not at all, as
// AtomicFile does for one file: the files go into a temporary sibling folder
// (".NAME.tmp-<pid>-XXXXXX", made by create(), so a destination that cannot be written
// fails before the work starts), and commit() renames it into place. An existing
// destination is replaced only when it holds nothing but what `ownsEntry` accepts (an
// earlier output of the same kind): a folder holding anything else is refused by create()
// and never touched. Without commit() the temporary folder is removed.
class AtomicFolder {
public:
    using EntryFilter = bool (*)(std::string_view name);
    static Result<AtomicFolder> create(const std::filesystem::path& destination,
                                       EntryFilter ownsEntry);

    AtomicFolder() = default;
    AtomicFolder(AtomicFolder&& o) noexcept;
    AtomicFolder& operator=(AtomicFolder&& o) noexcept;
    ~AtomicFolder();

    const std::filesystem::path& destination() const { return destination_; }
    // Writes `name` (a plain file name) into the temporary folder.
    Status writeFile(std::string_view name, std::string_view contents);
    // Renames the folder into place (swapping it with an earlier output, then removing
    // that one).
    Status commit();
    void discard();

private:
    std::filesystem::path temp_;
    std::filesystem::path destination_;
    EntryFilter owns_ = nullptr;
};

} // namespace gilscope
