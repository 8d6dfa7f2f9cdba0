#include "core/remote/thread_name_watcher.h"
#include "core/util/guarded_thread.h"

#include "core/remote/remote_memory.h"
#include "core/remote/threading_registry.h"
#include "core/util/utf8.h"

#include <chrono>

namespace gilscope::remote {

namespace {

// A comm file's name, without the kernel's trailing newline; empty when it cannot be read.
std::string readComm(const target::ProcDir& proc, const std::string& file) {
    std::string name = proc.read(file, 64).value_or("");
    if (!name.empty() && name.back() == '\n') name.pop_back();
    return name;
}

} // namespace

ThreadNameWatcher::ThreadNameWatcher(std::shared_ptr<const target::AttachedProcess> door,
                                     const PythonLayout& layout, uint64_t interp, int64_t refreshMs)
    : door_(std::move(door)), layout_(layout), interp_(interp), refreshMs_(refreshMs) {
}

ThreadNameWatcher::~ThreadNameWatcher() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void ThreadNameWatcher::noteThreads(const std::vector<ThreadStack>& stacks, size_t count) {
    bool same = count == lastTids_.size();
    for (size_t i = 0; same && i < count; ++i)
        same = stacks[i].threadId == lastTids_[i];
    if (same) return; // the usual case: the same threads as last time
    lastTids_.resize(count);
    std::vector<uint64_t> fresh;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t tid = stacks[i].threadId;
        lastTids_[i] = tid;
        if (tid && askedTids_.size() < kMaxThreads && askedTids_.insert(tid).second)
            fresh.push_back(tid);
    }
    if (fresh.empty()) return;
    {
        std::lock_guard lock(mutex_);
        for (uint64_t tid : fresh)
            tids_.insert(tid);
        pending_ = true;
    }
    wake_.notify_one();
}

bool ThreadNameWatcher::takeChanges(std::vector<ThreadName>& out) {
    if (!started_) {
        started_ = true;
        thread_ = std::thread(guardedThreadBody("the thread name watcher", [this] { run(); }));
    }
    if (!hasChanges_.load(std::memory_order_acquire)) return false;
    out.clear();
    std::lock_guard lock(mutex_);
    out.swap(changes_);
    hasChanges_.store(false, std::memory_order_relaxed);
    return !out.empty();
}

std::vector<ThreadName> ThreadNameWatcher::refreshNow() {
    std::unordered_set<uint64_t> tids;
    {
        std::lock_guard lock(mutex_);
        tids = tids_;
    }
    std::vector<ThreadName> out;
    for (auto& [tid, name] : refresh(tids))
        out.push_back({tid, name});
    return out;
}

std::string ThreadNameWatcher::why() const {
    std::lock_guard lock(mutex_);
    return error_;
}

void ThreadNameWatcher::run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        pending_ = false;
        const std::unordered_set<uint64_t> tids = tids_;
        lock.unlock();
        refresh(tids);
        lock.lock();
        wake_.wait_for(lock, std::chrono::milliseconds(refreshMs_),
                       [this] { return stop_ || pending_; });
    }
}

std::map<uint64_t, std::string>
ThreadNameWatcher::refresh(const std::unordered_set<uint64_t>& tids) {
    std::lock_guard refreshing(refreshMutex_);
    RemoteMemory mem(*door_); // this thread's own: the sampler's is not shared
    ThreadingRegistry registry(mem, layout_, interp_);
    std::vector<PythonThread> python;
    const bool ok = registry.read(python);
    std::map<uint64_t, std::string> names;
    for (PythonThread& t : python)
        names[t.nativeId] = std::move(t.name);
    // Threads threading did not make keep the OS's name, when it says more than the process's.
    const std::string processName = readComm(door_->proc(), "comm");
    std::vector<uint64_t> gone;
    for (uint64_t tid : tids) {
        if (names.count(tid)) continue;
        std::string comm = readComm(door_->proc(), "task/" + std::to_string(tid) + "/comm");
        if (comm.empty())
            gone.push_back(tid);
        else if (comm != processName)
            names[tid] = sanitizeUtf8(comm); // comm holds any bytes; names go into JSON
    }
    // Checked after the reads: names read once the target had ended may be another
    // process's, under the same pid.
    if (!door_->stillAttached()) return {};
    std::lock_guard lock(mutex_);
    error_ = ok ? std::string() : registry.why();
    for (uint64_t tid : gone)
        tids_.erase(tid); // its last name stays published
    for (auto& [tid, name] : names) {
        auto [it, fresh] = published_.try_emplace(tid, name);
        if (!fresh && it->second == name) continue;
        it->second = name;
        if (changes_.size() < 4 * kMaxThreads) changes_.push_back({tid, name});
    }
    if (published_.size() > 4 * kMaxThreads) published_.clear(); // a churning target
    if (!changes_.empty()) hasChanges_.store(true, std::memory_order_release);
    return names;
}

} // namespace gilscope::remote
