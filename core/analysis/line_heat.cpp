#include "core/analysis/line_heat.h"

#include "core/sample/frame_registry.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace gilscope {

bool isSourceFile(std::string_view file) {
    if (file.empty() || file == kPseudoFrameFile || file == "." || file == "...") return false;
    return file.front() != '<' && file.front() != '[';
}

namespace {

// Dense ids for the (file, line) pairs of a snapshot: CPython counts a line once per
// sample whichever function is on it (a comprehension shares its caller's line).
struct FileLines {
    std::vector<std::string> files; // per file id
    std::vector<uint32_t> fileOf;   // per function: file id, UINT32_MAX if not a source
    std::vector<uint32_t> idOfLine; // per LineKey: (file, line) id, UINT32_MAX if none
    std::vector<std::pair<uint32_t, int32_t>> pairs; // per (file, line) id

    explicit FileLines(const ProfileSnapshot& s) {
        std::unordered_map<std::string, uint32_t> fileIds;
        fileOf.assign(s.functions.size(), UINT32_MAX);
        for (size_t f = 0; f < s.functions.size(); ++f) {
            const FunctionInfo& fn = s.functions[f];
            if (!isSourceFile(fn.file)) continue;
            auto [it, added] = fileIds.try_emplace(fn.file, static_cast<uint32_t>(files.size()));
            if (added) files.push_back(fn.file);
            fileOf[f] = it->second;
        }
        std::map<std::pair<uint32_t, int32_t>, uint32_t> ids;
        idOfLine.assign(s.lines.size(), UINT32_MAX);
        for (size_t l = 0; l < s.lines.size(); ++l) {
            const LineKey& k = s.lines[l];
            // Line -1 (unknown) and CPython's corrupt "__init__" frame at line 0 are skipped.
            if (k.func >= fileOf.size() || fileOf[k.func] == UINT32_MAX || k.line < 0) continue;
            if (k.line == 0 && s.functions[k.func].file == "__init__") continue;
            const std::pair<uint32_t, int32_t> key{fileOf[k.func], k.line};
            auto [it, added] = ids.try_emplace(key, static_cast<uint32_t>(pairs.size()));
            if (added) pairs.push_back(key);
            idOfLine[l] = it->second;
        }
    }
};

} // namespace

std::vector<FileHeat> lineHeatByFile(const ProfileSnapshot& s) {
    const FileLines fl(s);
    std::vector<uint64_t> own(fl.pairs.size(), 0), total(fl.pairs.size(), 0);
    std::map<std::pair<uint32_t, uint8_t>, uint64_t> opcodes; // (line id, opcode) -> own
    std::vector<uint32_t> seen(fl.pairs.size(), 0);           // stamp: the leaf of the walk
    std::vector<uint32_t> fileSeen(fl.files.size(), 0);
    std::vector<uint64_t> fileSamples(fl.files.size(), 0);
    for (uint32_t leaf = 1; leaf < s.selfCounts.size(); ++leaf) {
        const uint64_t count = s.selfCounts[leaf];
        if (!count) continue;
        if (const uint32_t id = fl.idOfLine[s.nodes[leaf].line]; id != UINT32_MAX) {
            own[id] += count;
            if (s.nodes[leaf].opcode() != kNoOpcode) opcodes[{id, s.nodes[leaf].opcode()}] += count;
        }
        for (uint32_t n = leaf; n != 0; n = s.nodes[n].parent) {
            const uint32_t id = fl.idOfLine[s.nodes[n].line];
            if (id == UINT32_MAX || seen[id] == leaf) continue;
            seen[id] = leaf;
            total[id] += count;
            if (const uint32_t file = fl.pairs[id].first; fileSeen[file] != leaf) {
                fileSeen[file] = leaf;
                fileSamples[file] += count;
            }
        }
    }
    std::vector<FileHeat> out(fl.files.size());
    for (size_t f = 0; f < fl.files.size(); ++f) {
        out[f].file = fl.files[f];
        out[f].samples = fileSamples[f];
    }
    for (size_t id = 0; id < fl.pairs.size(); ++id) {
        if (!total[id]) continue;
        FileHeat& h = out[fl.pairs[id].first];
        FileLineHeat line{fl.pairs[id].second, own[id], total[id], {}};
        for (auto it = opcodes.lower_bound({uint32_t(id), 0});
             it != opcodes.end() && it->first.first == id; ++it)
            line.opcodes.emplace_back(it->first.second, it->second);
        std::stable_sort(line.opcodes.begin(), line.opcodes.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        h.lines.push_back(std::move(line));
        h.own += own[id];
        h.total += total[id];
    }
    std::erase_if(out, [](const FileHeat& h) { return h.total == 0; });
    for (FileHeat& h : out)
        std::sort(h.lines.begin(), h.lines.end(),
                  [](const FileLineHeat& a, const FileLineHeat& b) { return a.line < b.line; });
    std::sort(out.begin(), out.end(), [](const FileHeat& a, const FileHeat& b) {
        if (a.samples != b.samples) return a.samples > b.samples;
        return a.total != b.total ? a.total > b.total : a.file < b.file;
    });
    return out;
}

std::vector<FileLineHeat> fileLineHeat(const ProfileSnapshot& s, const std::string& file) {
    for (FileHeat& h : lineHeatByFile(s))
        if (h.file == file) return std::move(h.lines);
    return {};
}

std::vector<LineCall> lineCalls(const ProfileSnapshot& s) {
    // Samples through each stack node: children have larger ids than their parents.
    std::vector<uint64_t> through(s.selfCounts.begin(), s.selfCounts.end());
    for (size_t n = through.size(); n-- > 1;)
        through[s.nodes[n].parent] += through[n];
    std::map<std::tuple<uint32_t, int32_t, uint32_t>, uint64_t> calls;
    for (uint32_t n = 1; n < s.nodes.size() && n < through.size(); ++n) {
        const uint32_t parent = s.nodes[n].parent;
        if (!through[n] || parent == 0) continue;
        const uint32_t callee = s.nodes[n].func;
        if (callee >= s.functions.size() || !isSourceFile(s.functions[callee].file)) continue;
        const StackNode& caller = s.nodes[parent];
        calls[{caller.func, s.lines[caller.line].line, callee}] += through[n];
    }
    std::vector<LineCall> out;
    out.reserve(calls.size());
    for (const auto& [key, samples] : calls)
        out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), samples});
    std::stable_sort(out.begin(), out.end(),
                     [](const LineCall& a, const LineCall& b) { return a.samples > b.samples; });
    return out;
}

} // namespace gilscope
