#pragma once

// The heatmap's pages as HTML text: an index of the source files by samples and one page
// per file with its source and a heat column of own and total samples per line. Every
// name and every source byte is escaped; the pages load nothing from anywhere (a
// Content-Security-Policy forbids it) and run no script.

#include "core/analysis/line_heat.h"
#include "core/heatmap/source_text.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope::heatmap {

// What the header of every page says about the recording.
struct HeatmapSummary {
    std::string target;      // "PID 1234", or the .bin's name
    uint64_t samples = 0;    // thread-samples counted
    uint64_t intervalUs = 0; // sampling interval
    double durationSec = 0;  // first to last sample
    std::string mode;        // "wall", "cpu", ... (empty: unknown)
    int pythonMinor = 0;     // the target's 3.x, for the instructions' names (--opcodes)
};

// One link to a line of another page ("" page: no page, plain text).
struct LineLink {
    std::string label; // function name
    std::string page;  // "file_0003.html", or empty
    int32_t line = 0;
    std::string where; // "file.py:12" shown beside it
    uint64_t samples = 0;
};

struct FilePage {
    const FileHeat* heat = nullptr;
    SourceText source;
    std::vector<std::vector<LineLink>> callers; // per entry of callerLines
    std::vector<int32_t> callerLines;           // a function's first line: who calls it
    std::vector<std::vector<LineLink>> callees; // per entry of calleeLines
    std::vector<int32_t> calleeLines;           // a call site: what it calls
};

// `pages[i]` is the page name of files[i].
std::string renderIndex(const HeatmapSummary& summary, const std::vector<FileHeat>& files,
                        const std::vector<std::string>& pages);
std::string renderFilePage(const HeatmapSummary& summary, const FilePage& page);

} // namespace gilscope::heatmap
