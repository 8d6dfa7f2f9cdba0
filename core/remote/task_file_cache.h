#pragma once

#include "core/target/proc_dir.h"
#include "core/util/unique_fd.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <unordered_map>

namespace gilscope::remote {

// One /proc/PID/task/TID/<name> file per thread, kept open between samples: pread on a
// kept fd is ~3x cheaper than open/read/close. Threads come and go, so fds of threads
// not seen for a while are dropped. Opened through the target's /proc directory (its door),
// so a thread of another process that got the pid later is never read.
class TaskFileCache {
public:
    // `proc` outlives the cache (the door it belongs to).
    TaskFileCache(const target::ProcDir& proc, std::string name)
        : proc_(proc), name_(std::move(name)) {}

    // Reads the head of thread `tid`'s file into buf and NUL-terminates it. Returns the
    // byte count, or -1 when the file cannot be opened or read (the thread has exited).
    ssize_t readHead(uint64_t tid, char* buf, size_t size);
    void endSample();

private:
    struct Entry {
        UniqueFd fd;
        uint64_t lastSeen = 0;
    };
    const target::ProcDir& proc_;
    std::string name_;
    uint64_t generation_ = 1;
    std::unordered_map<uint64_t, Entry> fds_;
};

} // namespace gilscope::remote
