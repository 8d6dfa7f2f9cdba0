#include "core/heatmap/heatmap_writer.h"

#include <cstdio>
#include <map>
#include <unordered_map>

namespace gilscope::heatmap {

namespace {

std::string pageName(size_t i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "file_%04zu.html", i);
    return buf;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The links of every page: callers on a function's first line, callees on call sites.
void addLinks(const ProfileSnapshot& s, const std::unordered_map<std::string, size_t>& pageOf,
              std::vector<FilePage>& pages) {
    const auto pageFor = [&](uint32_t func) -> const size_t* {
        const auto it = pageOf.find(s.functions[func].file);
        return it == pageOf.end() ? nullptr : &it->second;
    };
    // page -> line -> links, kept in line order.
    std::vector<std::map<int32_t, std::vector<LineLink>>> callers(pages.size()),
        callees(pages.size());
    for (const LineCall& c : lineCalls(s)) {
        if (c.callerFunc >= s.functions.size() || c.calleeFunc >= s.functions.size()) continue;
        const FunctionInfo& caller = s.functions[c.callerFunc];
        const FunctionInfo& callee = s.functions[c.calleeFunc];
        const size_t* callerPage = pageFor(c.callerFunc);
        const size_t* calleePage = pageFor(c.calleeFunc);
        if (calleePage && callee.firstLine > 0)
            callers[*calleePage][callee.firstLine].push_back(
                {caller.name, callerPage ? pageName(*callerPage) : std::string(), c.callerLine,
                 baseName(caller.file) + ":" + std::to_string(c.callerLine), c.samples});
        if (callerPage && c.callerLine > 0)
            callees[*callerPage][c.callerLine].push_back(
                {callee.name, calleePage ? pageName(*calleePage) : std::string(), callee.firstLine,
                 baseName(callee.file) + ":" + std::to_string(callee.firstLine), c.samples});
    }
    for (size_t p = 0; p < pages.size(); ++p) {
        for (auto& [line, list] : callers[p]) {
            pages[p].callerLines.push_back(line);
            pages[p].callers.push_back(std::move(list));
        }
        for (auto& [line, list] : callees[p]) {
            pages[p].calleeLines.push_back(line);
            pages[p].callees.push_back(std::move(list));
        }
    }
}

} // namespace

bool isHeatmapEntry(std::string_view name) {
    if (name == "index.html") return true;
    // file_NNNN.html (four digits or more)
    if (name.size() < 14 || name.substr(0, 5) != "file_" || !name.ends_with(".html")) return false;
    for (const char c : name.substr(5, name.size() - 10))
        if (c < '0' || c > '9') return false;
    return true;
}

Result<size_t> writeHeatmap(const ProfileSnapshot& snapshot, SourceCache& sources,
                            const HeatmapSummary& summary, AtomicFolder& folder,
                            const CancelToken* cancel) {
    const std::vector<FileHeat> files = lineHeatByFile(snapshot);
    HeatmapSummary named = summary;
    if (!named.pythonMinor) named.pythonMinor = snapshot.pythonMinor;
    std::vector<std::string> names;
    std::unordered_map<std::string, size_t> pageOf;
    std::vector<FilePage> pages(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        names.push_back(pageName(i));
        pageOf.emplace(files[i].file, i);
        pages[i].heat = &files[i];
    }
    addLinks(snapshot, pageOf, pages);
    for (size_t i = 0; i < files.size(); ++i) {
        if (cancel && cancel->cancelled())
            return makeError(ErrorKind::Cancelled, "aborted; no output written");
        pages[i].source = sources.get(files[i].file);
        if (auto s = folder.writeFile(names[i], renderFilePage(named, pages[i])); !s)
            return s.error();
        pages[i].source = {}; // a page's source is not needed again
    }
    if (auto s = folder.writeFile("index.html", renderIndex(summary, files, names)); !s)
        return s.error();
    return files.size();
}

} // namespace gilscope::heatmap
