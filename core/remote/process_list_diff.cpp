#include "core/remote/process_list_diff.h"

#include <algorithm>
#include <map>
#include <string>

namespace gilscope {
namespace {

using Key = std::pair<int, std::string>;
Key keyOf(const PythonProcessInfo& p) {
    return {p.pid, p.executable};
}

} // namespace

bool sameProcessFields(const PythonProcessInfo& a, const PythonProcessInfo& b) {
    return a.pid == b.pid && a.uid == b.uid && a.user == b.user && a.version == b.version &&
           a.executable == b.executable && a.commandLine == b.commandLine &&
           a.canAttach == b.canAttach && a.reason == b.reason;
}

ProcessListMatch matchProcessLists(const std::vector<PythonProcessInfo>& current,
                                   const std::vector<PythonProcessInfo>& fresh) {
    std::map<Key, size_t> freshIndex;
    for (size_t i = 0; i < fresh.size(); ++i)
        freshIndex.emplace(keyOf(fresh[i]), i);
    ProcessListMatch match;
    match.freshRowOf.reserve(current.size());
    std::vector<bool> freshSeen(fresh.size(), false);
    for (const PythonProcessInfo& p : current) {
        auto it = freshIndex.find(keyOf(p));
        if (it == freshIndex.end() || freshSeen[it->second]) {
            match.freshRowOf.emplace_back();
            continue;
        }
        freshSeen[it->second] = true;
        match.freshRowOf.emplace_back(it->second);
    }
    for (size_t i = 0; i < fresh.size(); ++i)
        if (!freshSeen[i]) match.newRows.push_back(i);
    return match;
}

ProcessListChanges diffProcessLists(const std::vector<PythonProcessInfo>& current,
                                    const std::vector<PythonProcessInfo>& fresh) {
    const ProcessListMatch match = matchProcessLists(current, fresh);
    ProcessListChanges changes;
    size_t kept = 0;
    for (size_t i = 0; i < current.size(); ++i) {
        const auto row = match.freshRowOf[i];
        if (!row) {
            changes.removedRows.push_back(i);
            continue;
        }
        if (!sameProcessFields(current[i], fresh[*row]))
            changes.changedRows.emplace_back(kept, fresh[*row]);
        ++kept;
    }
    for (size_t i : match.newRows)
        changes.appended.push_back(fresh[i]);
    std::reverse(changes.removedRows.begin(), changes.removedRows.end());
    return changes;
}

void applyProcessListChanges(std::vector<PythonProcessInfo>& list,
                             const ProcessListChanges& changes) {
    for (size_t row : changes.removedRows)
        list.erase(list.begin() + static_cast<long>(row));
    for (const auto& [row, info] : changes.changedRows)
        list[row] = info;
    list.insert(list.end(), changes.appended.begin(), changes.appended.end());
}

} // namespace gilscope
