#include "core/heatmap/heatmap_html.h"

#include "core/gecko/opcode_names.h"
#include "core/html/html_escape.h"

#include "core/util/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gilscope::heatmap {

using html::htmlEscape;

namespace {

std::string capitalized(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = char(s[0] - 'a' + 'A');
    return s;
}

// No request of any kind leaves the page; inline styles only.
constexpr char kHead[] = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
)";

constexpr char kStyle[] = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fff}
header{padding:12px 20px;background:#263238;color:#eceff1}
header h1{font-size:18px;margin:0 0 4px}
header a{color:#80cbc4}
.facts{font-size:13px;color:#b0bec5}
main{padding:12px 20px}
.note{padding:8px 12px;background:#fff3e0;border-left:4px solid #fb8c00;margin:8px 0}
table{border-collapse:collapse}
.files td,.files th{padding:3px 10px;text-align:right}
.files td.name,.files th.name{text-align:left}
.bar{height:10px;background:#e53935;display:inline-block}
.code{font:13px/1.35 ui-monospace,monospace;width:100%}
.code td{padding:0 6px;vertical-align:top;white-space:pre}
.code td.n,.code td.own,.code td.tot{text-align:right;color:#555;min-width:3em}
.code td.n a{color:#999;text-decoration:none}
.code td.src{width:100%}
.code td.nav{font:12px system-ui,sans-serif;white-space:normal;min-width:14em}
.code tr:target{outline:2px solid #1e88e5}
.nav a{color:#1565c0}
th{font-weight:600;border-bottom:1px solid #ccc}
</style>
)";

std::string fmtDouble(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string header(const HeatmapSummary& s, const std::string& title, bool backLink) {
    std::string h = std::string(kHead) + "<title>" + htmlEscape(title) + "</title>\n" + kStyle +
                    "</head><body>\n<header><h1>" + htmlEscape(title) +
                    "</h1><div class=\"facts\">";
    if (backLink) h += "<a href=\"index.html\">\u2190 all files</a> \u00b7 ";
    h += htmlEscape(s.target) + " \u00b7 " + std::to_string(s.samples) + " samples";
    if (s.intervalUs) h += " \u00b7 " + fmtDouble(1e6 / double(s.intervalUs), 0) + " Hz";
    h += " \u00b7 " + fmtDouble(s.durationSec, 2) + " s";
    if (!s.mode.empty()) h += " \u00b7 mode " + htmlEscape(s.mode);
    h += " \u00b7 gilscope heatmap</div></header>\n<main>\n";
    return h;
}

constexpr char kFoot[] = "</main></body></html>\n";

// Heat as CPython's heatmap scales it: log(n + 1) / log(max + 1).
std::string heatStyle(uint64_t n, uint64_t max) {
    if (!n || !max) return {};
    const double i = std::log(double(n) + 1) / std::log(double(max) + 1);
    return " style=\"background:rgba(229,57,53," + fmtDouble(0.08 + 0.72 * i, 3) + ")\"";
}

// The source split into lines as Python numbers them (\n, \r\n or \r ends a line).
std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n' && text[i] != '\r') continue;
        lines.push_back(text.substr(start, i - start));
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        start = i + 1;
    }
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

std::string links(const std::vector<LineLink>& list, const char* arrow, const char* what) {
    std::string out = "<div>";
    out += arrow;
    out += ' ';
    out += what;
    out += ' ';
    for (size_t i = 0; i < list.size(); ++i) {
        const LineLink& l = list[i];
        if (i) out += ", ";
        const std::string label = htmlEscape(l.label);
        const std::string title =
            htmlEscape(l.where) + ", " + std::to_string(l.samples) + " samples";
        if (l.page.empty())
            out += "<span title=\"" + title + "\">" + label + "</span>";
        else
            out += "<a href=\"" + htmlEscape(l.page) + "#line-" + std::to_string(l.line) +
                   "\" title=\"" + title + "\">" + label + "</a>";
        out += " (" + std::to_string(l.samples) + ")";
    }
    return out + "</div>";
}

} // namespace

std::string renderIndex(const HeatmapSummary& summary, const std::vector<FileHeat>& files,
                        const std::vector<std::string>& pages) {
    std::string h = header(summary, "Heatmap: " + summary.target, false);
    h += "<p>" + std::to_string(files.size()) +
         " source files by samples (samples: with the file on the stack; own: executing one of "
         "its lines; line total: the sum of its lines' totals, as CPython counts).</p>\n"
         "<table class=\"files\"><tr><th>#</th><th class=\"name\">file</th><th>samples</th>"
         "<th>share</th><th>own</th><th>line total</th><th></th></tr>\n";
    const uint64_t top = files.empty() ? 1 : std::max<uint64_t>(files.front().samples, 1);
    for (size_t i = 0; i < files.size(); ++i) {
        const FileHeat& f = files[i];
        const double share =
            summary.samples ? 100.0 * double(f.samples) / double(summary.samples) : 0;
        h += "<tr data-samples=\"" + std::to_string(f.samples) + "\" data-total=\"" +
             std::to_string(f.total) + "\" data-own=\"" + std::to_string(f.own) + "\"><td>" +
             std::to_string(i + 1) + "</td><td class=\"name\"><a href=\"" + htmlEscape(pages[i]) +
             "\">" + htmlEscape(f.file) + "</a></td><td>" + std::to_string(f.samples) +
             "</td><td>" + fmtDouble(share, 1) + "%</td><td>" + std::to_string(f.own) +
             "</td><td>" + std::to_string(f.total) + "</td><td><span class=\"bar\" style=\"width:" +
             fmtDouble(100.0 * double(f.samples) / double(top), 0) + "px\"></span></td></tr>\n";
    }
    return h + "</table>\n" + kFoot;
}

std::string renderFilePage(const HeatmapSummary& summary, const FilePage& page) {
    const FileHeat& f = *page.heat;
    std::string h = header(summary, f.file, true);
    h += "<p>" + std::to_string(f.samples) + " samples with this file on the stack (" +
         std::to_string(f.own) +
         " executing one of its lines); own: samples executing a line, "
         "total: samples with it anywhere on the stack.</p>\n";
    std::vector<std::string_view> lines;
    if (page.source.ok) {
        lines = splitLines(page.source.bytes);
        h += "<p class=\"facts\">Read from " + htmlEscape(page.source.readFrom) + "</p>\n";
    } else {
        // readSource's why names the file and the reason ("source not shown: ...").
        h += "<p class=\"note\" id=\"no-source\">" + htmlEscape(capitalized(page.source.why)) +
             ". The lines with samples are listed without their text.</p>\n";
    }
    uint64_t maxOwn = 0, maxTotal = 0;
    for (const FileLineHeat& l : f.lines) {
        maxOwn = std::max(maxOwn, l.own);
        maxTotal = std::max(maxTotal, l.total);
    }
    h += "<table class=\"code\"><tr><th>line</th><th>own</th><th>total</th><th>source</th>"
         "<th>calls</th></tr>\n";
    // Every line of the source, then lines with samples past its end (all of them without
    // it): a line number a recording made up costs one row, never the rows up to it.
    std::vector<int32_t> shown;
    for (size_t n = 1; n <= lines.size(); ++n)
        shown.push_back(int32_t(n));
    for (const FileLineHeat& l : f.lines)
        if (l.line >= 1 && size_t(l.line) > lines.size()) shown.push_back(l.line);
    size_t heat = 0;
    const auto linksAt = [](const std::vector<int32_t>& at,
                            const std::vector<std::vector<LineLink>>& all,
                            int32_t line) -> const std::vector<LineLink>* {
        const auto it = std::lower_bound(at.begin(), at.end(), line);
        return it != at.end() && *it == line ? &all[size_t(it - at.begin())] : nullptr;
    };
    for (const int32_t n : shown) {
        while (heat < f.lines.size() && f.lines[heat].line < n)
            ++heat;
        const bool hot = heat < f.lines.size() && f.lines[heat].line == n;
        const uint64_t own = hot ? f.lines[heat].own : 0, total = hot ? f.lines[heat].total : 0;
        const std::string id = std::to_string(n);
        h += "<tr id=\"line-" + id + "\"";
        if (hot)
            h += " data-own=\"" + std::to_string(own) + "\" data-total=\"" + std::to_string(total) +
                 "\"";
        // --opcodes: the line's own samples by instruction, as the cell's tooltip.
        std::string byInstruction;
        if (hot)
            for (const auto& [opcode, count] : f.lines[heat].opcodes)
                byInstruction += (byInstruction.empty() ? "" : "&#10;") +
                                 htmlEscape(formatOpcode(opcode, summary.pythonMinor)) + ": " +
                                 std::to_string(count);
        h += "><td class=\"n\"><a href=\"#line-" + id + "\">" + id + "</a></td><td class=\"own\"" +
             (byInstruction.empty() ? "" : " title=\"" + byInstruction + "\"") +
             heatStyle(own, maxOwn) + ">" + (own ? std::to_string(own) : "") +
             "</td><td class=\"tot\"" + heatStyle(total, maxTotal) + ">" +
             (total ? std::to_string(total) : "") + "</td><td class=\"src\">" +
             (size_t(n) <= lines.size() ? htmlEscape(lines[size_t(n - 1)]) : "") +
             "</td><td class=\"nav\">";
        if (const auto* c = linksAt(page.callerLines, page.callers, n))
            h += links(*c, "\u25b2", "called from");
        if (const auto* c = linksAt(page.calleeLines, page.callees, n))
            h += links(*c, "\u25bc", "calls");
        h += "</td></tr>\n";
    }
    return h + "</table>\n" + kFoot;
}

} // namespace gilscope::heatmap
