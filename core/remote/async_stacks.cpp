#include "core/remote/async_stacks.h"

#include "core/sample/thread_status.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace gilscope::remote {

void buildTaskStacks(const std::vector<AsyncTask>& tasks, FrameRegistry& registry,
                     std::vector<ThreadStack>& out, size_t& count) {
    // A task listed twice (reached again through another waiter) keeps its last entry.
    std::unordered_map<uint64_t, const AsyncTask*> byAddr;
    std::unordered_set<uint64_t> parents;
    for (const AsyncTask& t : tasks) {
        byAddr[t.addr] = &t;
        parents.insert(t.waiters.begin(), t.waiters.end());
    }
    const StringId taskFile = registry.internString("<task>");
    std::unordered_set<uint64_t> emitted, visited;
    for (const AsyncTask& leaf : tasks) {
        if (parents.count(leaf.addr) || !emitted.insert(leaf.addr).second) continue;
        if (count == out.size()) out.emplace_back();
        ThreadStack& stack = out[count];
        stack.frames.clear();
        stack.threadId = leaf.threadId;
        stack.pythonThreadId = 0;
        stack.interpreterId = 0;
        stack.status = ThreadStatus::Unknown;
        stack.skipped = false;
        visited.clear();
        const AsyncTask* task = &leaf;
        while (task && visited.insert(task->addr).second) {
            stack.frames.insert(stack.frames.end(), task->frames.begin(), task->frames.end());
            std::string name =
                task->name.empty() ? "Task-" + std::to_string(task->addr) : task->name;
            const AsyncTask* parent = nullptr;
            if (!task->waiters.empty()) {
                const uint64_t chosen =
                    *std::min_element(task->waiters.begin(), task->waiters.end());
                if (task->waiters.size() > 1)
                    name += " (" + std::to_string(task->waiters.size()) + " parents)";
                auto it = byAddr.find(chosen);
                parent = it == byAddr.end() ? nullptr : it->second;
            }
            FrameInfo marker{taskFile, registry.internString(name)};
            marker.line = marker.endLine = 0;
            stack.frames.push_back(registry.internFrame(marker));
            task = parent;
        }
        if (!stack.frames.empty()) ++count;
    }
}

} // namespace gilscope::remote
