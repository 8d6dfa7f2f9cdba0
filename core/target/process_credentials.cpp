#include "core/target/process_credentials.h"

#include <algorithm>
#include <charconv>
#include <linux/capability.h>

namespace gilscope::target {

namespace {

// The text after "Key:\t" on its line, or nullopt.
std::optional<std::string_view> field(std::string_view status, std::string_view key) {
    size_t at = 0;
    while (at < status.size()) {
        const size_t end = std::min(status.find('\n', at), status.size());
        const std::string_view line = status.substr(at, end - at);
        if (line.size() > key.size() && line.substr(0, key.size()) == key &&
            line[key.size()] == ':')
            return line.substr(key.size() + 1);
        at = end + 1;
    }
    return std::nullopt;
}

// Whitespace-separated decimal numbers.
std::optional<std::vector<uint32_t>> numbers(std::string_view text) {
    std::vector<uint32_t> out;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        if (i == text.size()) break;
        uint32_t v = 0;
        const auto r = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (r.ec != std::errc()) return std::nullopt;
        out.push_back(v);
        i = size_t(r.ptr - text.data());
    }
    return out;
}

} // namespace

bool ProcessCredentials::inGroup(uint32_t gid) const {
    return gid == fsgid || std::find(groups.begin(), groups.end(), gid) != groups.end();
}

bool ProcessCredentials::mayOverrideFileModes() const {
    return sameUserNamespace && (capEffective >> CAP_DAC_OVERRIDE & 1) != 0;
}

bool ProcessCredentials::mayReadAnyFile() const {
    return mayOverrideFileModes() ||
           (sameUserNamespace && (capEffective >> CAP_DAC_READ_SEARCH & 1) != 0);
}

std::optional<ProcessCredentials> credentialsFromStatus(std::string_view status) {
    const auto uid = field(status, "Uid"), gid = field(status, "Gid");
    const auto groups = field(status, "Groups"), caps = field(status, "CapEff");
    if (!uid || !gid || !groups || !caps) return std::nullopt;
    const auto uids = numbers(*uid), gids = numbers(*gid), sup = numbers(*groups);
    // real, effective, saved, filesystem
    if (!uids || !gids || !sup || uids->size() != 4 || gids->size() != 4) return std::nullopt;
    ProcessCredentials c;
    c.fsuid = (*uids)[3];
    c.fsgid = (*gids)[3];
    c.groups = *sup;
    std::string_view hex = *caps;
    while (!hex.empty() && (hex.front() == ' ' || hex.front() == '\t'))
        hex.remove_prefix(1);
    const auto r = std::from_chars(hex.data(), hex.data() + hex.size(), c.capEffective, 16);
    if (r.ec != std::errc() || r.ptr == hex.data()) return std::nullopt;
    return c;
}

} // namespace gilscope::target
