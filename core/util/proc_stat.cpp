#include "core/util/proc_stat.h"

#include <charconv>

namespace gilscope {

std::optional<uint64_t> procStatField(std::string_view stat, int wanted) {
    const size_t close = stat.rfind(')');
    if (close == std::string_view::npos || wanted < 3) return std::nullopt;
    const std::string_view rest = stat.substr(close + 1);
    int field = 2;
    size_t i = 0;
    while (i < rest.size()) {
        while (i < rest.size() && rest[i] == ' ')
            ++i;
        const size_t start = i;
        while (i < rest.size() && rest[i] != ' ')
            ++i;
        if (++field < wanted) continue;
        uint64_t v = 0;
        if (std::from_chars(rest.data() + start, rest.data() + i, v).ec != std::errc{})
            return std::nullopt;
        return v;
    }
    return std::nullopt;
}

} // namespace gilscope
