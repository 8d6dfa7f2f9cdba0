#pragma once

#include "core/target/proc_dir.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace gilscope::remote {

// What a target's file descriptor is, in a few words a user knows: "TCP 127.0.0.1:5432"
// (a connected socket's peer), "TCP listen 0.0.0.0:8000", "UDP 10.0.0.5:53",
// "Unix socket /run/x.sock", "pipe", "/var/log/app.log". From /proc/PID/fd and, for
// sockets, the target's own network namespace (/proc/PID/net/tcp, tcp6, udp, udp6, unix),
// read through the target's door (its /proc directory: never another process that got
// the pid later).
//
// The link is read each time (an fd number is reused with another object); what it points
// at is resolved once per inode and kept, up to kMaxEntries. Nothing is guessed: an fd
// that cannot be read gives nullopt, a socket not found in the tables "socket".
class FdDescriber {
public:
    static constexpr size_t kMaxEntries = 4096;

    // `proc` outlives the describer (the door it belongs to).
    explicit FdDescriber(const target::ProcDir& proc) : proc_(proc) {}
    std::optional<std::string> describe(int fd);

    uint64_t tableReads() const { return tableReads_; } // readings of the socket tables
    // The least time between two readings: 50 ms, or ten times the last one took.
    std::chrono::steady_clock::duration readInterval() const { return readEvery_; }

    // The link's text ("socket:[123]", "pipe:[9]", a path) to a description, with the
    // socket tables' texts in `tables` (tests give them; empty: read from /proc).
    struct Tables {
        std::string_view tcp, tcp6, udp, udp6, unixSockets;
    };
    static std::string describeLink(std::string_view link, const Tables& tables);
    // The sockets of `wanted` (inodes) found in the tables, by inode. Every row is looked
    // at (a busy host's namespace has many more sockets than the target), only the wanted
    // are kept. A connection accepted by a listening socket of the tables is told by that
    // socket ("TCP client of 0.0.0.0:8000"), so a server's many clients are one frame.
    static std::unordered_map<std::string, std::string>
    socketsOf(const Tables& tables, const std::unordered_set<std::string>& wanted);

private:
    // The inodes of the target's sockets now (at most kMaxEntries), from /proc/PID/fd.
    std::unordered_set<std::string> targetSocketInodes() const;

    const target::ProcDir& proc_;
    std::unordered_map<std::string, std::string> byLink_;  // "socket:[123]" -> description
    std::unordered_map<std::string, std::string> sockets_; // inode -> description, last read
    std::chrono::steady_clock::duration readEvery_ = std::chrono::milliseconds(50);
    std::chrono::steady_clock::time_point tablesReadAt_{}; // when sockets_ was read
    uint64_t tableReads_ = 0;
};

} // namespace gilscope::remote
