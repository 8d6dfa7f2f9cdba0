#include "core/remote/process_tree.h"

#include "core/remote/exec_watch.h"
#include "core/remote/proc_files.h"

#include <dirent.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace gilscope {

namespace {

void parsePids(std::string_view text, std::vector<int>& out) {
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\n'))
            ++p;
        int v = 0;
        auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc() || next == p) break;
        if (v > 0) out.push_back(v);
        p = next;
    }
}

std::vector<int> numericEntries(const std::string& dirPath) {
    std::vector<int> out;
    DIR* dir = ::opendir(dirPath.c_str());
    if (!dir) return out;
    while (dirent* e = ::readdir(dir)) {
        int v = 0;
        const char* name = e->d_name;
        auto [next, ec] = std::from_chars(name, name + std::strlen(name), v);
        if (ec == std::errc() && *next == '\0' && v > 0) out.push_back(v);
    }
    ::closedir(dir);
    return out;
}

bool kernelListsChildren() {
    static const bool has = [] {
        const std::string self = std::to_string(::getpid());
        return ::access(("/proc/" + self + "/task/" + self + "/children").c_str(), F_OK) == 0;
    }();
    return has;
}

// Children of pid as the kernel lists them, per thread (a thread's fork is its child).
std::vector<int> childrenOf(int pid) {
    const std::string base = "/proc/" + std::to_string(pid) + "/task/";
    std::vector<int> out;
    for (int tid : numericEntries(base))
        if (auto text = remote::readProcFile(base + std::to_string(tid) + "/children", 1 << 20))
            parsePids(*text, out); // else the thread ended while we looked
    return out;
}

// Breadth first from root, through `children(pid)`, each pid once.
template <typename Children>
std::vector<int> walkDown(int root, Children&& children) {
    std::vector<int> out;
    std::deque<int> todo{root};
    std::unordered_set<int> seen{root};
    while (!todo.empty()) {
        const int pid = todo.front();
        todo.pop_front();
        for (int child : children(pid))
            if (seen.insert(child).second) {
                out.push_back(child);
                todo.push_back(child);
            }
    }
    return out;
}

// Fallback: every process's parent, from /proc/PID/stat.
std::unordered_map<int, std::vector<int>> childrenByScan() {
    std::unordered_map<int, std::vector<int>> children;
    for (int pid : numericEntries("/proc"))
        if (auto ppid = remote::parentPid(pid)) children[*ppid].push_back(pid);
    return children;
}

} // namespace

std::vector<int> descendantPids(int root) {
    if (kernelListsChildren()) return walkDown(root, childrenOf);
    auto byParent = childrenByScan();
    return walkDown(root, [&](int pid) { return byParent[pid]; });
}

std::string executableOf(int pid) {
    char buf[4096];
    const ssize_t n =
        ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::optional<uint64_t> cpuTimeNs(int pid) {
    const auto text = remote::readProcFile("/proc/" + std::to_string(pid) + "/schedstat", 256);
    if (!text) return std::nullopt;
    uint64_t ns = 0;
    auto [next, ec] = std::from_chars(text->data(), text->data() + text->size(), ns);
    if (ec != std::errc() || next == text->data()) return std::nullopt;
    return ns;
}

std::optional<bool> isRunnable(int pid) {
    const auto text = remote::readProcFile("/proc/" + std::to_string(pid) + "/stat", 4096);
    if (!text) return std::nullopt;
    // "PID (COMM) S ...": COMM may hold anything, so the state follows the last ')'.
    const size_t close = text->rfind(')');
    if (close == std::string::npos || close + 2 >= text->size()) return std::nullopt;
    return (*text)[close + 2] == 'R';
}

bool forkIsAWorker(std::optional<uint64_t> cpuNs, uint64_t ageMs, bool runnable) {
    // Without schedstat only the age and the state can tell.
    return (cpuNs && *cpuNs >= kForkWorkerCpuNs) || (ageMs >= kForkWorkerAgeMs && !runnable);
}

} // namespace gilscope
