#include "core/html/flame_data.h"

#include "core/analysis/module_color.h"
#include "core/analysis/profile_diff.h"
#include "core/analysis/profile_views.h"
#include "core/html/json_text.h"
#include "core/util/file_name.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace gilscope::html {

namespace {

// Colours reach full strength at this change, as in the window (FlameGraphWidget).
constexpr double kFullChange = 10;

double pct(uint64_t n, uint64_t of) {
    return of ? 100.0 * static_cast<double>(n) / static_cast<double>(of) : 0.0;
}

// Interns strings for the page's string table.
class Strings {
public:
    uint32_t id(const std::string& s) {
        const auto [it, added] = ids_.try_emplace(s, static_cast<uint32_t>(list_.size()));
        if (added) list_.push_back(&it->first);
        return it->second;
    }
    void write(JsonText& j) const {
        j.raw("[");
        for (size_t i = 0; i < list_.size(); ++i) {
            if (i) j.raw(",");
            j.str(*list_[i]);
        }
        j.raw("]");
    }

private:
    std::unordered_map<std::string, uint32_t> ids_;
    std::vector<const std::string*> list_; // stable: unordered_map keys do not move
};

template <typename T, typename Fn>
void writeArray(JsonText& j, const std::vector<T>& items, Fn&& each) {
    j.raw("[");
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) j.raw(",");
        each(items[i]);
    }
    j.raw("]");
}

// A call tree in preorder (children by total, descending): the page lays a zoomed
// subtree out as one contiguous range.
struct Preorder {
    std::vector<uint32_t> order;  // tree node per position
    std::vector<uint32_t> parent; // position of the parent (the root: 0)
};

Preorder preorder(const CallTree& tree) {
    Preorder p;
    p.order.reserve(tree.size());
    p.parent.reserve(tree.size());
    std::vector<std::pair<uint32_t, uint32_t>> todo{{0, 0}}; // node, parent's position
    while (!todo.empty()) {
        const auto [n, parentPos] = todo.back();
        todo.pop_back();
        const auto pos = static_cast<uint32_t>(p.order.size());
        p.order.push_back(n);
        p.parent.push_back(parentPos);
        const auto kids = tree.children(n);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it)
            todo.push_back({*it, pos});
    }
    return p;
}

// Call path keys (profile_diff's, so they match the baseline's share table) per position.
std::vector<uint64_t> pathKeys(const ProfileSnapshot& s, const CallTree& tree, const Preorder& p) {
    std::vector<uint64_t> keys(p.order.size(), 0);
    for (size_t i = 1; i < p.order.size(); ++i)
        keys[i] = childPathKey(keys[p.parent[i]], functionKey(s.functions[tree.func(p.order[i])]));
    return keys;
}

void writeView(JsonText& j, const FlameView& v, const ShareTable* base) {
    const ProfileSnapshot& s = *v.snapshot;
    const CallTree tree = shownTree(s);
    const Preorder p = preorder(tree);
    j.raw("{").key("label", true).str(v.label).key("tid").num(v.threadId);
    j.key("samples").num(s.matchedSamples);
    j.key("f");
    writeArray(j, p.order, [&](uint32_t n) {
        const uint32_t f = tree.func(n);
        f == kNoFunction ? j.raw("-1") : j.num(uint64_t{f});
    });
    j.key("p");
    writeArray(j, p.parent, [&](uint32_t pos) { j.num(uint64_t{pos}); });
    j.key("t");
    writeArray(j, p.order, [&](uint32_t n) { j.num(tree.total(n)); });
    j.key("s");
    writeArray(j, p.order, [&](uint32_t n) { j.num(tree.self(n)); });
    if (base) {
        // Each frame's share of the baseline's samples on the same call path, in points.
        const std::vector<uint64_t> keys = pathKeys(s, tree, p);
        j.key("b");
        writeArray(j, keys, [&](uint64_t k) {
            const auto it = base->pathTotalPct.find(k);
            j.num(k == 0 ? 100.0 : it == base->pathTotalPct.end() ? 0.0 : it->second, 3);
        });
    }
    j.raw("}");
}

// "a > b > c" for the last frames of a call path (the root first).
std::string pathText(const ProfileSnapshot& s, const CallTree& tree, uint32_t node) {
    std::vector<std::string> names;
    for (uint32_t n = node; n != 0 && names.size() < 5; n = tree.parent(n))
        names.push_back(s.functions[tree.func(n)].name);
    std::string out = tree.parent(node) != 0 && names.size() == 5 ? "\u2026 > " : "";
    for (size_t i = names.size(); i-- > 0;)
        out += names[i] + (i ? " > " : "");
    return out;
}

struct OnlyOneSide {
    std::string path;
    double pct = 0;
};

// The frames of `s` whose call path `other` never reached (the topmost of each such
// subtree), largest share first.
std::vector<OnlyOneSide> framesMissingFrom(const ProfileSnapshot& s, const ShareTable& other,
                                           size_t limit) {
    const CallTree tree = shownTree(s);
    std::vector<OnlyOneSide> out;
    if (tree.empty() || tree.total(0) == 0) return out;
    std::vector<std::pair<uint32_t, uint64_t>> todo{{0, 0}};
    while (!todo.empty()) {
        const auto [n, path] = todo.back();
        todo.pop_back();
        for (uint32_t c : tree.children(n)) {
            const uint64_t key = childPathKey(path, functionKey(s.functions[tree.func(c)]));
            if (other.pathTotalPct.count(key))
                todo.push_back({c, key});
            else
                out.push_back({pathText(s, tree, c), pct(tree.total(c), tree.total(0))});
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.pct > b.pct; });
    if (out.size() > limit) out.resize(limit);
    return out;
}

void writeComparison(JsonText& j, const FlameComparison& c, const ProfileSnapshot& current,
                     const ShareTable& base) {
    const ProfileSnapshot& b = *c.baseline;
    j.key("diff").raw("{").key("baseline", true).str(c.baselinePath);
    j.key("baselineSamples")
        .num(b.matchedSamples)
        .key("currentSamples")
        .num(current.matchedSamples);
    j.key("fullChange").num(kFullChange, 1);
    // The window's change colours (core's rule) in steps of a twentieth of kFullChange.
    j.key("palette").raw("[");
    for (int k = -20; k <= 20; ++k)
        j.raw(k == -20 ? "" : ",").str(cssHex(changeColor(kFullChange * k / 20.0, kFullChange)));
    j.raw("]");
    std::vector<DiffRow> rows = diffFunctions(b, current);
    auto writeRows = [&](const char* name, bool grew) {
        std::vector<const DiffRow*> picked;
        for (const DiffRow& r : rows)
            if (grew ? r.deltaTotal() > 0 : r.deltaTotal() < 0) picked.push_back(&r);
        std::stable_sort(picked.begin(), picked.end(), [grew](auto* x, auto* y) {
            return grew ? x->deltaTotal() > y->deltaTotal() : x->deltaTotal() < y->deltaTotal();
        });
        if (picked.size() > c.listed) picked.resize(c.listed);
        j.key(name);
        writeArray(j, picked, [&](const DiffRow* r) {
            j.raw("{").key("name", true).str(r->function).key("file").str(r->file);
            j.key("line").num(int64_t{r->line}).key("base").num(r->baseTotalPct, 2);
            j.key("cur").num(r->curTotalPct, 2).key("delta").num(r->deltaTotal(), 2).raw("}");
        });
    };
    writeRows("grew", true);
    writeRows("shrank", false);
    const ShareTable cur = shareTable(current);
    for (const auto& [name, list] :
         {std::pair{"onlyCurrent", framesMissingFrom(current, base, c.listed)},
          std::pair{"onlyBaseline", framesMissingFrom(b, cur, c.listed)}}) {
        j.key(name);
        writeArray(j, list, [&](const OnlyOneSide& o) {
            j.raw("{").key("path", true).str(o.path).key("pct").num(o.pct, 2).raw("}");
        });
    }
    j.raw("}");
}

} // namespace

std::string flameGraphJson(const FlameFacts& facts, const std::vector<FlameView>& views,
                           const FlameComparison* comparison) {
    JsonText j;
    j.raw("{").key("meta", true).raw("{");
    j.key("title", true).str(facts.title).key("target").str(facts.target);
    j.key("python").str(facts.python).key("mode").str(facts.mode);
    j.key("intervalUs").num(facts.intervalUs).key("durationSec").num(facts.durationSec, 3);
    j.key("sampleRate").num(facts.sampleRate, 1).key("samples").num(facts.samples);
    j.key("threads").num(uint64_t{facts.threads});
    j.raw("}");

    // Functions and their modules, once for every view.
    const ProfileSnapshot& first = *views.front().snapshot;
    Strings strings;
    std::unordered_map<std::string, uint32_t> moduleIds;
    std::vector<std::string> modules;
    std::vector<Rgb> moduleColors;
    std::vector<uint32_t> funcModule;
    for (const FunctionInfo& f : first.functions) {
        // A C function's module is its library ("libc.so.6"), in the native colours.
        std::string m = f.native ? std::string(fileName(f.file)) : moduleOf(f.file);
        const std::string key = f.native ? m + '\0' : m;
        const auto [it, added] = moduleIds.try_emplace(key, static_cast<uint32_t>(modules.size()));
        if (added) {
            moduleColors.push_back(f.native ? colorOfLibrary(m) : colorOfModule(m));
            modules.push_back(std::move(m));
        }
        funcModule.push_back(it->second);
    }
    j.key("funcs").raw("{").key("name", true);
    writeArray(j, first.functions,
               [&](const FunctionInfo& f) { j.num(uint64_t{strings.id(f.name)}); });
    j.key("file");
    writeArray(j, first.functions,
               [&](const FunctionInfo& f) { j.num(uint64_t{strings.id(f.file)}); });
    j.key("line");
    writeArray(j, first.functions, [&](const FunctionInfo& f) { j.num(int64_t{f.firstLine}); });
    j.key("module");
    writeArray(j, funcModule, [&](uint32_t m) { j.num(uint64_t{m}); });
    j.raw("}").key("modules").raw("{").key("name", true);
    writeArray(j, modules, [&](const std::string& m) { j.str(m); });
    j.key("color");
    writeArray(j, moduleColors, [&](Rgb c) { j.str(cssHex(c)); });
    j.raw("}");

    ShareTable base;
    if (comparison) base = shareTable(*comparison->baseline);
    j.key("views");
    writeArray(j, views,
               [&](const FlameView& v) { writeView(j, v, comparison ? &base : nullptr); });
    if (comparison) writeComparison(j, *comparison, first, base);
    j.key("strings");
    strings.write(j);
    j.raw("}");
    return std::move(j.text());
}

} // namespace gilscope::html
