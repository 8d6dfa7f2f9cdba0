#pragma once

// A profiled program's source files, as the heatmap, dump and the window show them. A live
// target's files are read through its door (target::TargetFiles): in its own root, as its
// own user may read them, never from this machine's disk. A recording opened from a file
// has no live target: its sources are read from this machine, with the user's own rights.
// A recording that ends with its target loses its root, so SourceCache reads each file
// once, as soon as the recording names it, and keeps it.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace gilscope::target {
class AttachedProcess;
}

namespace gilscope::heatmap {

inline constexpr size_t kMaxSourceBytes = size_t(8) << 20;

struct SourceText {
    bool ok = false;
    std::string bytes;              // the file as read (any bytes)
    std::string readFrom;           // where it was read: "PATH (in process N's root)" or PATH
    std::string why;                // when !ok: "source not shown: PATH is ...", for every output
    std::optional<double> modified; // its mtime, in seconds since the epoch
};

// target: the live process whose file it is (through its door only); null: a file on
// this machine, read with the user's own rights.
SourceText readSource(const std::string& file, const target::AttachedProcess* target);

// Thread-safe: a prefetching thread fills it while the page writer reads it.
class SourceCache {
public:
    explicit SourceCache(std::shared_ptr<const target::AttachedProcess> target)
        : target_(std::move(target)) {}
    // Reads `file` unless it was read before (successfully or not).
    void fetch(const std::string& file);
    // The cached text, or a read now.
    SourceText get(const std::string& file);

private:
    const std::shared_ptr<const target::AttachedProcess> target_;
    std::mutex mutex_;
    std::map<std::string, SourceText> texts_;
};

} // namespace gilscope::heatmap
