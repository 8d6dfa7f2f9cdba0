#include "core/remote/still_process.h"

#include <algorithm>

namespace gilscope::remote {

void StillProcess::relist() {
    std::vector<uint64_t> tids;
    list_.clear();
    listed_ = tasks_.list(tids);
    if (!listed_) return;
    std::sort(tids.begin(), tids.end());
    tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
    list_.reserve(tids.size());
    for (uint64_t tid : tids) {
        Task t;
        t.tid = tid;
        list_.push_back(t);
    }
}

bool StillProcess::stillSinceLastRead() {
    if (!listed_) relist();
    bool same = armed_ && !list_.empty();
    for (Task& t : list_) {
        t.probed = false;
        uint64_t a = 0;
        if (!tasks_.arrivals(t.tid, a)) {
            t.arrivalsOk = false;
            same = false;
            continue;
        }
        if (!t.arrivalsOk || a != t.arrivals) same = false;
        t.arrivals = a;
        t.arrivalsOk = true;
    }
    if (same) {
        ++still_;
        return true;
    }
    armed_ = false;
    // t0 is taken: now each thread's state, before the read looks at memory. A thread
    // asleep at its last probe and not put on a CPU since is still asleep there.
    for (Task& t : list_) {
        const bool unchanged = t.hasProbe && t.arrivalsOk && t.probedAt == t.arrivals &&
                               t.state.cpu == ThreadStateProbe::Cpu::Idle;
        bool onCpu = false;
        if (!unchanged && cpuFromSwitches_ && t.arrivalsOk && tasks_.onCpuNow(t.tid, onCpu)) {
            // The switch count says on or off a CPU, not why: an idle thread's wait is Unknown.
            t.state = {onCpu ? ThreadStateProbe::Cpu::OnCpu : ThreadStateProbe::Cpu::Idle, 0, {}};
            t.probedAt = t.arrivals;
            t.hasProbe = true;
            ++fromSwitches_;
        } else if (!unchanged) {
            t.state = probe_(t.tid);
            t.probedAt = t.arrivals;
            t.hasProbe = t.arrivalsOk;
        }
        t.probed = true;
    }
    return false;
}

const ThreadStateProbe::State* StillProcess::probedBefore(uint64_t tid) const {
    auto it = std::lower_bound(list_.begin(), list_.end(), tid,
                               [](const Task& t, uint64_t v) { return t.tid < v; });
    return it != list_.end() && it->tid == tid && it->probed ? &it->state : nullptr;
}

bool StillProcess::nothingOnCpu() {
    if (list_.empty()) return false;
    for (const Task& t : list_)
        if (!t.probed || t.state.cpu != ThreadStateProbe::Cpu::Idle) return false;
    const int64_t n = tasks_.count();
    if (n < 0 || size_t(n) != list_.size()) return false;
    armIfStill(n); // no memory was read: the count just taken is the one after "the read"
    return true;
}

void StillProcess::afterRead(bool ok) {
    armed_ = false;
    if (!ok || list_.empty()) return;
    armIfStill(tasks_.count());
}

void StillProcess::armIfStill(int64_t n) {
    armed_ = false;
    // Threads came or went (a thread that is gone no longer answers, or its probe finds
    // no file): list them again, and the next sample's readings are their t0.
    bool changed = n < 0 || size_t(n) != list_.size();
    for (const Task& t : list_)
        if (!t.arrivalsOk || (t.probed && t.state.cpu == ThreadStateProbe::Cpu::Unknown))
            changed = true;
    if (changed) {
        relist();
        return;
    }
    for (const Task& t : list_)
        if (!t.probed || t.state.cpu != ThreadStateProbe::Cpu::Idle) return;
    for (const Task& t : list_) {
        uint64_t a = 0;
        if (!tasks_.arrivals(t.tid, a)) {
            listed_ = false;
            return;
        }
        if (a != t.arrivals) return;
    }
    armed_ = true;
}

} // namespace gilscope::remote
