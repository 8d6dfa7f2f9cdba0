#include "core/remote/fd_describer.h"

#include <arpa/inet.h>
#include <charconv>
#include <chrono>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <netinet/in.h>
#include <unistd.h>

namespace gilscope::remote {

namespace {

// "0100007F:1538" (IPv4: one word in host order) or 32 hex digits (IPv6: four words).
std::string formatAddress(std::string_view hexAddr, bool v6) {
    const size_t colon = hexAddr.find(':');
    if (colon == std::string_view::npos) return {};
    const std::string_view ip = hexAddr.substr(0, colon), portHex = hexAddr.substr(colon + 1);
    unsigned port = 0;
    if (std::from_chars(portHex.data(), portHex.data() + portHex.size(), port, 16).ec !=
        std::errc{})
        return {};
    uint8_t bytes[16] = {};
    const size_t words = v6 ? 4 : 1;
    if (ip.size() != words * 8) return {};
    for (size_t w = 0; w < words; ++w) {
        uint32_t word = 0;
        const char* p = ip.data() + w * 8;
        if (std::from_chars(p, p + 8, word, 16).ec != std::errc{}) return {};
        std::memcpy(bytes + w * 4, &word, 4); // the kernel printed each word in host order
    }
    char text[INET6_ADDRSTRLEN] = {};
    if (!inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, text, sizeof text)) return {};
    return v6 ? "[" + std::string(text) + "]:" + std::to_string(port)
              : std::string(text) + ":" + std::to_string(port);
}

std::string_view field(std::string_view line, size_t index) {
    size_t i = 0;
    while (true) {
        const size_t start = line.find_first_not_of(' ');
        if (start == std::string_view::npos) return {};
        line.remove_prefix(start);
        const size_t end = std::min(line.find(' '), line.size());
        if (i++ == index) return line.substr(0, end);
        line.remove_prefix(end);
    }
}

template <typename F>
void forEachLine(std::string_view text, F&& f) {
    bool header = true;
    while (!text.empty()) {
        const size_t nl = std::min(text.find('\n'), text.size());
        if (!header && !f(text.substr(0, nl))) return;
        header = false;
        text.remove_prefix(std::min(nl + 1, text.size()));
    }
}

uint16_t portOf(std::string_view hexAddr) {
    const size_t colon = hexAddr.find(':');
    unsigned port = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(hexAddr.data() + colon + 1, hexAddr.data() + hexAddr.size(), port, 16).ec !=
            std::errc{} ||
        port > 0xffff)
        return 0;
    return uint16_t(port);
}

// tcp/udp tables: "sl local rem st tx:rx tr:tm retrnsmt uid timeout inode ...".
// `listening`: the local address of each listening TCP port, by port.
std::string describeInet(std::string_view line, bool v6, bool tcp,
                         const std::unordered_map<uint16_t, std::string>& listening) {
    const std::string local = formatAddress(field(line, 1), v6);
    const std::string peer = formatAddress(field(line, 2), v6);
    const bool noPeer = peer.empty() || peer.ends_with(":0");
    const std::string proto = tcp ? "TCP" : "UDP";
    if (local.empty() && peer.empty()) return proto + " socket"; // addresses we cannot read
    // TCP state 0A is LISTEN: no peer, what it listens on says more.
    if (tcp && field(line, 3) == "0A") return proto + " listen " + local;
    // Accepted by one of the listening sockets: the server's port, not each client's.
    if (tcp && !noPeer)
        if (const auto it = listening.find(portOf(field(line, 1))); it != listening.end())
            return proto + " client of " + it->second;
    return proto + " " + (noPeer ? local : peer);
}

// unix: "Num RefCount Protocol Flags Type St Inode [Path]".
std::string describeUnix(std::string_view line) {
    const std::string_view path = field(line, 7);
    return path.empty() ? "Unix socket" : "Unix socket " + std::string(path);
}

} // namespace

std::unordered_map<std::string, std::string>
FdDescriber::socketsOf(const Tables& t, const std::unordered_set<std::string>& wanted) {
    std::unordered_map<std::string, std::string> out;
    // The listening TCP ports first (rows cut short have no inode field and are passed
    // over), then the wanted rows; the first table that has an inode wins.
    std::unordered_map<uint16_t, std::string> listening;
    for (const auto& [table, isV6] : {std::pair{t.tcp, false}, std::pair{t.tcp6, true}})
        // A copy: clang 15 does not let a lambda capture a structured binding.
        forEachLine(table, [&, v6 = isV6](std::string_view line) {
            if (field(line, 3) == "0A" && listening.size() < 65536)
                if (const uint16_t port = portOf(field(line, 1)); port != 0)
                    listening.try_emplace(port, formatAddress(field(line, 1), v6));
            return true;
        });
    auto inet = [&](std::string_view table, bool v6, bool tcp) {
        forEachLine(table, [&](std::string_view line) {
            const std::string_view inode = field(line, 9);
            if (!inode.empty() && wanted.count(std::string(inode)))
                out.try_emplace(std::string(inode), describeInet(line, v6, tcp, listening));
            return out.size() < wanted.size();
        });
    };
    inet(t.tcp, false, true);
    inet(t.tcp6, true, true);
    inet(t.udp, false, false);
    inet(t.udp6, true, false);
    forEachLine(t.unixSockets, [&](std::string_view line) {
        const std::string_view inode = field(line, 6);
        if (!inode.empty() && wanted.count(std::string(inode)))
            out.try_emplace(std::string(inode), describeUnix(line));
        return out.size() < wanted.size();
    });
    return out;
}

std::string FdDescriber::describeLink(std::string_view link, const Tables& t) {
    if (link.starts_with("socket:[") && link.ends_with("]")) {
        const std::string inode(link.substr(8, link.size() - 9));
        const auto sockets = socketsOf(t, {inode});
        const auto it = sockets.find(inode);
        return it == sockets.end() ? "socket" : it->second;
    }
    if (link.starts_with("pipe:[")) return "pipe";
    if (link.starts_with("anon_inode:")) {
        std::string_view kind = link.substr(11);
        if (kind.starts_with("[") && kind.ends_with("]")) kind = kind.substr(1, kind.size() - 2);
        return std::string(kind); // "eventfd", "timerfd", "[eventpoll]" as "eventpoll"
    }
    return std::string(link); // a path
}

std::unordered_set<std::string> FdDescriber::targetSocketInodes() const {
    std::unordered_set<std::string> inodes;
    UniqueFd dir = proc_.openAt("fd", O_RDONLY | O_DIRECTORY);
    if (!dir) return inodes;
    std::unique_ptr<DIR, int (*)(DIR*)> fds(::fdopendir(dir.get()), ::closedir);
    if (!fds) return inodes;
    (void)dir.release(); // the DIR owns it now
    while (const dirent* e = ::readdir(fds.get())) {
        if (inodes.size() >= kMaxEntries) break;
        char link[64];
        const ssize_t n = ::readlinkat(::dirfd(fds.get()), e->d_name, link, sizeof link - 1);
        const std::string_view text(link, n > 0 ? size_t(n) : 0);
        if (text.starts_with("socket:[") && text.ends_with("]"))
            inodes.emplace(text.substr(8, text.size() - 9));
    }
    return inodes;
}

std::optional<std::string> FdDescriber::describe(int fd) {
    if (fd < 0) return std::nullopt;
    const std::optional<std::string> link = proc_.readLink("fd/" + std::to_string(fd));
    if (!link || link->empty()) return std::nullopt;
    const std::string& key = *link;
    if (auto it = byLink_.find(key); it != byLink_.end()) return it->second;
    std::string text;
    if (key.starts_with("socket:[") && key.ends_with("]")) {
        const std::string inode = key.substr(8, key.size() - 9);
        auto it = sockets_.find(inode);
        // A socket the last reading of the tables did not have: read them again (the
        // target's own network namespace), all sockets at once, at most every 50 ms, so
        // that a service's 100 connections cost one reading, not 100.
        const auto now = std::chrono::steady_clock::now();
        if (it == sockets_.end() && now - tablesReadAt_ >= readEvery_) {
            tablesReadAt_ = now;
            // Every socket the target has now (one reading describes them all), and this
            // one: only those are looked for, past any number of the host's other rows.
            std::unordered_set<std::string> wanted = targetSocketInodes();
            wanted.insert(inode);
            const std::string tcp = proc_.read("net/tcp").value_or(""),
                              tcp6 = proc_.read("net/tcp6").value_or(""),
                              udp = proc_.read("net/udp").value_or(""),
                              udp6 = proc_.read("net/udp6").value_or(""),
                              unixSockets = proc_.read("net/unix").value_or("");
            // Bounded by the target's own sockets, however many the host has.
            sockets_ = socketsOf({tcp, tcp6, udp, udp6, unixSockets}, wanted);
            ++tableReads_;
            // A host with huge tables is read less often: at most a tenth of this thread's
            // time (it is the sampler's) goes to them.
            const auto took = std::chrono::steady_clock::now() - now;
            readEvery_ = std::max<std::chrono::steady_clock::duration>(
                std::chrono::milliseconds(50), 10 * took);
            it = sockets_.find(inode);
        }
        // Not found yet, or no peer yet (a socket about to connect): looked up again.
        if (it == sockets_.end()) return std::string("socket");
        text = it->second;
        if (text.ends_with(":0")) return text;
    } else {
        text = describeLink(key, {});
    }
    if (byLink_.size() >= kMaxEntries) byLink_.clear(); // bounded, however many fds
    byLink_.emplace(key, text);
    return text;
}

} // namespace gilscope::remote
