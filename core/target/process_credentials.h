#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gilscope::target {

// Who a process is, for the files it may open: the ids the kernel checks a file's mode
// against (fsuid, fsgid and the supplementary groups) and the capabilities that bypass that
// check. Read from /proc/PID/status, where ids are already mapped into our user namespace.
struct ProcessCredentials {
    uint32_t fsuid = 0, fsgid = 0;
    std::vector<uint32_t> groups;
    uint64_t capEffective = 0;
    // Capabilities count only in the process's own user namespace: a container's root with
    // CAP_DAC_OVERRIDE there cannot read a host file it does not own.
    bool sameUserNamespace = false;

    bool inGroup(uint32_t gid) const;
    // CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH as far as they apply to our files.
    bool mayOverrideFileModes() const;
    bool mayReadAnyFile() const;
};

// From the text of /proc/PID/status; nullopt when a line is missing or malformed.
std::optional<ProcessCredentials> credentialsFromStatus(std::string_view status);

} // namespace gilscope::target
