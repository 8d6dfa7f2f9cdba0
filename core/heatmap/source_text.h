#pragma once

// A profiled program's source files, as the heatmap shows them: read from the target's
// own filesystem (/proc/PID/root/...) while it runs, else from this machine's disk. A
// recording that ends with its target has lost /proc/PID/root, so SourceCache reads each
// file once, as soon as the recording names it, and keeps it.

#include <map>
#include <mutex>
#include <string>

namespace gilscope::heatmap {

struct SourceText {
    bool ok = false;
    std::string bytes;    // the file as read (any bytes)
    std::string readFrom; // the path it was read through
    std::string why;      // when !ok: why it could not be read, for the page
};

// pid > 0: through /proc/PID/root (a relative name through /proc/PID/cwd); when that
// fails, the same path on this machine. pid 0: this machine only. At most 8 MiB.
SourceText readSource(const std::string& file, int pid);

// Thread-safe: a prefetching thread fills it while the page writer reads it.
class SourceCache {
public:
    explicit SourceCache(int pid) : pid_(pid) {}
    // Reads `file` unless it was read before (successfully or not).
    void fetch(const std::string& file);
    // The cached text, or a read now.
    SourceText get(const std::string& file);

private:
    const int pid_;
    std::mutex mutex_;
    std::map<std::string, SourceText> texts_;
};

} // namespace gilscope::heatmap
