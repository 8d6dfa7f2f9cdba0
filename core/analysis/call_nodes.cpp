#include "core/analysis/call_nodes.h"

#include <algorithm>

namespace gilscope {

std::shared_ptr<const CallNodeChildren> CallNodeChildren::build(const CallNodes& calls) {
    auto out = std::make_shared<CallNodeChildren>();
    const size_t count = calls.size();
    out->begin.assign(count + 1, 0);
    out->recursive.assign(count, 0);
    if (count == 0) return out;
    // Children as ranges: count per parent, then place (a child's id is larger).
    for (size_t c = 1; c < count; ++c)
        ++out->begin[calls[c].parent + 1];
    for (size_t n = 0; n < count; ++n)
        out->begin[n + 1] += out->begin[n];
    out->list.resize(count - 1);
    std::vector<uint32_t> filled(out->begin.begin(), out->begin.end() - 1);
    for (uint32_t c = 1; c < count; ++c)
        out->list[filled[calls[c].parent]++] = c;
    // Recursion: a walk down the tree counting each function on the path.
    uint32_t functions = 0;
    for (size_t c = 1; c < count; ++c)
        functions = std::max(functions, calls[c].func == kNoFunction ? 0 : calls[c].func + 1);
    std::vector<uint32_t> onPath(functions, 0);
    std::vector<std::pair<uint32_t, bool>> todo{{0, false}}; // node, leaving it
    while (!todo.empty()) {
        const auto [n, leaving] = todo.back();
        todo.pop_back();
        const uint32_t f = calls[n].func;
        const bool counted = f < functions;
        if (leaving) {
            if (counted) --onPath[f];
            continue;
        }
        if (counted) {
            out->recursive[n] = onPath[f] > 0;
            ++onPath[f];
        }
        todo.emplace_back(n, true);
        for (uint32_t i = out->begin[n]; i < out->begin[n + 1]; ++i)
            todo.emplace_back(out->list[i], false);
    }
    return out;
}

} // namespace gilscope
