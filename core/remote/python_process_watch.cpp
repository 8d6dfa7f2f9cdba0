#include "core/remote/python_process_watch.h"

#include "core/remote/process_tree.h"

namespace gilscope::remote {

PythonProcessWatch::PythonProcessWatch(int looksBeforeGivingUp, Judge judge)
    : looksBeforeGivingUp_(looksBeforeGivingUp), judge_(std::move(judge)) {
}

void PythonProcessWatch::markRecorded(int pid) {
    if (auto image = processImage(pid))
        seen_[pid] = Seen{.image = *image, .done = true, .firstSeen = {}, .poll = polls_};
}

std::vector<int> PythonProcessWatch::poll(const std::vector<int>& pids,
                                          const std::function<bool(int)>& recording) {
    ++polls_;
    std::vector<int> found;
    for (int pid : pids) {
        auto [it, fresh] = seen_.try_emplace(pid);
        it->second.poll = polls_;
        if (!fresh && it->second.done && recording && recording(pid)) continue;
        if (ready(pid, it->second, fresh)) found.push_back(pid);
    }
    // Gone since (a pid reused later is a new process). markRecorded's entry stays until
    // a poll that misses it.
    std::erase_if(seen_, [this](const auto& entry) { return entry.second.poll + 1 < polls_; });
    return found;
}

bool PythonProcessWatch::retryLater(int pid, int maxRetries) {
    auto it = seen_.find(pid);
    if (it == seen_.end() || it->second.retries >= maxRetries) return false;
    ++it->second.retries;
    it->second.done = false; // the next poll judges it again (same image)
    return true;
}

bool PythonProcessWatch::ready(int pid, Seen& seen, bool fresh) {
    const auto image = processImage(pid);
    if (!image) return false; // gone
    const auto now = std::chrono::steady_clock::now();
    if (!fresh && seen.image == *image) {
        if (seen.done) return false;
        // A fork still running its parent's image is recorded as it is once it shows it
        // will not exec. Before that, recording it would read the parent's image and
        // then, after its exec, a new one at the same addresses: on a busy machine a
        // subprocess child can wait many polls for a core before its execve.
        const auto age =
            std::chrono::duration_cast<std::chrono::milliseconds>(now - seen.firstSeen);
        if (seen.forkPending && !forkIsAWorker(cpuTimeNs(pid), static_cast<uint64_t>(age.count()),
                                               isRunnable(pid).value_or(true)))
            return false;
    } else {
        // New, or it exec'd since: judge the new image.
        const uint64_t poll = seen.poll;
        seen = Seen{.image = *image,
                    .forkPending = false,
                    .done = false,
                    .looks = 0,
                    .firstSeen = now,
                    .poll = poll};
        const auto parent = parentPid(pid);
        const auto parentImage = parent ? processImage(*parent) : std::nullopt;
        if (parentImage && *parentImage == *image) {
            seen.forkPending = true;
            return false;
        }
    }
    switch (judge_(pid)) {
    case Look::Python:
        seen.done = true;
        return true;
    case Look::Ignore:
        seen.done = true;
        return false;
    case Look::NotPython:
        seen.done = ++seen.looks >= looksBeforeGivingUp_;
        return false;
    }
    return false;
}

} // namespace gilscope::remote
