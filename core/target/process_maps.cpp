#include "core/target/process_maps.h"

#include "core/target/attached_process.h"

#include <charconv>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>

namespace gilscope::target {

namespace {

uint64_t parseHex(std::string_view s) {
    uint64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v, 16);
    return v;
}

std::string_view nextField(std::string_view& line) {
    while (!line.empty() && line.front() == ' ')
        line.remove_prefix(1);
    const size_t sp = line.find(' ');
    std::string_view field = line.substr(0, sp);
    line = sp == std::string_view::npos ? std::string_view{} : line.substr(sp);
    return field;
}

constexpr std::string_view kDeleted = " (deleted)";

} // namespace

std::vector<MapEntry> parseMaps(std::string_view all) {
    std::vector<MapEntry> maps;
    while (!all.empty()) {
        const size_t nl = all.find('\n');
        std::string_view line = all.substr(0, nl);
        all = nl == std::string_view::npos ? std::string_view{} : all.substr(nl + 1);
        const std::string_view range = nextField(line);
        const size_t dash = range.find('-');
        if (dash == std::string_view::npos) continue;
        MapEntry e;
        e.start = parseHex(range.substr(0, dash));
        e.end = parseHex(range.substr(dash + 1));
        e.perms = std::string(nextField(line));
        e.offset = parseHex(nextField(line));
        const std::string_view dev = nextField(line);
        if (const size_t colon = dev.find(':'); colon != std::string_view::npos) {
            e.devMajor = uint32_t(parseHex(dev.substr(0, colon)));
            e.devMinor = uint32_t(parseHex(dev.substr(colon + 1)));
        }
        const std::string_view inode = nextField(line);
        std::from_chars(inode.data(), inode.data() + inode.size(), e.inode);
        while (!line.empty() && line.front() == ' ')
            line.remove_prefix(1);
        e.path = std::string(line);
        maps.push_back(std::move(e));
    }
    return maps;
}

Result<UniqueFd> openMappedFile(const AttachedProcess& process, const MapEntry& m) {
    char range[64];
    std::snprintf(range, sizeof range, "map_files/%llx-%llx",
                  static_cast<unsigned long long>(m.start), static_cast<unsigned long long>(m.end));
    if (UniqueFd fd = process.proc().openAt(range, O_RDONLY)) return fd;
    const bool deleted =
        m.path.size() > kDeleted.size() &&
        m.path.compare(m.path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0;
    if (m.path.empty() || m.path.front() != '/' || deleted)
        return makeError(ErrorKind::Io,
                         "cannot open the file mapped at " + std::string(range + 10));
    // maps shows a path from our root: a chrooted target's files under its root directory.
    std::string inRoot = m.path;
    if (const auto root = process.proc().readLink("root"); root && *root != "/") {
        if (inRoot.rfind(*root + "/", 0) != 0)
            return makeError(ErrorKind::Io, m.path + " is outside the process's root");
        inRoot = inRoot.substr(root->size());
    }
    auto fd = process.files().openFile(inRoot);
    if (!fd) return fd.error();
    struct stat st {};
    // The inode, not the device: overlayfs shows the lower layer's device in maps. The file
    // is one the target may read anyway; the check keeps a same-named other file's symbols out.
    if (::fstat(fd->get(), &st) != 0 || st.st_ino != m.inode)
        return makeError(ErrorKind::Io, m.path + " in the process's root is not the file it maps");
    return std::move(*fd);
}

} // namespace gilscope::target
