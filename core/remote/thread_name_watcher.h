#pragma once

#include "core/remote/python_layout.h"
#include "core/sample/stack_source.h"
#include "core/target/attached_process.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

namespace gilscope::remote {

// Keeps the names of a live target's threads (ThreadName) fresh, off the sampling path:
// a thread of its own reads threading's registry (ThreadingRegistry, through its own
// RemoteMemory) and /proc comm through the target's door about once a second, and sooner
// when the sampler saw a thread it had not named yet. Once the target has ended nothing more
// is read or published: its pid may name another process by then. The sampler only compares thread
// ids with its last sample's and polls an atomic flag.
class ThreadNameWatcher {
public:
    static constexpr int64_t kRefreshMs = 1000;
    static constexpr size_t kMaxThreads = 8192;

    // refreshMs: how often names are read again when no new thread appeared.
    ThreadNameWatcher(std::shared_ptr<const target::AttachedProcess> door,
                      const PythonLayout& layout, uint64_t interp, int64_t refreshMs = kRefreshMs);
    ~ThreadNameWatcher(); // stops and joins the refresh thread
    ThreadNameWatcher(const ThreadNameWatcher&) = delete;
    ThreadNameWatcher& operator=(const ThreadNameWatcher&) = delete;

    // Sampler thread, after each read: notes new thread ids and wakes the refresh.
    void noteThreads(const std::vector<ThreadStack>& stacks, size_t count);
    // Sampler thread: names that appeared or changed since the last call. The first call
    // starts the refresh thread.
    bool takeChanges(std::vector<ThreadName>& out);
    // One refresh on the caller's thread: the names of every thread noted so far and of
    // every thread threading knows (dump).
    std::vector<ThreadName> refreshNow();
    // Why threading's registry could not be read last time (empty: it could).
    std::string why() const;

private:
    void run();
    // Reads the names of `tids` (and every Python-named thread); publishes the changes.
    std::map<uint64_t, std::string> refresh(const std::unordered_set<uint64_t>& tids);

    const std::shared_ptr<const target::AttachedProcess> door_;
    const PythonLayout layout_;
    const uint64_t interp_;
    const int64_t refreshMs_;
    std::vector<uint64_t> lastTids_;         // sampler thread: the last sample's thread ids
    std::unordered_set<uint64_t> askedTids_; // sampler thread: ids handed to the refresh
    bool started_ = false;                   // sampler thread

    mutable std::mutex mutex_; // guards everything below
    std::condition_variable wake_;
    bool stop_ = false, pending_ = false;
    std::unordered_set<uint64_t> tids_; // every thread id the sampler saw (bounded)
    std::map<uint64_t, std::string> published_;
    std::vector<ThreadName> changes_;
    std::string error_;
    std::atomic<bool> hasChanges_{false};
    std::mutex refreshMutex_; // one refresh at a time (the thread's, or refreshNow's)
    std::thread thread_;
};

} // namespace gilscope::remote
