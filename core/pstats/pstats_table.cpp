// print_stats() of CPython's PstatsCollector: the same rows, order, units, widths,
// legend and summary, so the text reads (and diffs) like CPython's.
#include "core/pstats/pstats_collector.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <unistd.h>
#include <unordered_map>

namespace gilscope::pstats {

namespace {

struct Row {
    std::string file; // basename, as strip_dirs() leaves it
    int64_t line = 0;
    std::string func;
    uint64_t direct = 0, cumulative = 0;
    double tottime = 0, cumtime = 0;
};

// Names may hold any character, NUL included: never through printf's %s.
void put(std::FILE* out, const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), out);
}

struct Colors {
    const char *boldBlue = "", *green = "", *yellow = "", *cyan = "", *reset = "";
};

// Python's repr() of a str, enough for sorting keys the way str(tuple) does.
std::string pyRepr(const std::string& s) {
    const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char q = dq ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char c : s) {
        if (c == '\\' || c == static_cast<unsigned char>(q)) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[5];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + q;
}

std::string stdName(const Row& r) {
    return "(" + pyRepr(r.file) + ", " + std::to_string(r.line) + ", " + pyRepr(r.func) + ")";
}

std::string basename(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Width in code points, as Python's format() pads.
size_t displayWidth(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xc0) != 0x80;
    return n;
}

std::string padLeft(const std::string& s, size_t width) {
    const size_t w = displayWidth(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

// _determine_best_unit()
std::pair<const char*, double> bestUnit(double maxValue) {
    if (maxValue >= 1.0) return {"s", 1.0};
    if (maxValue >= 0.001) return {"ms", 1000.0};
    return {"\u03bcs", 1e6};
}

std::vector<Row> strippedRows(const PstatsCollector& c) {
    std::vector<Row> rows;
    std::unordered_map<PstatsCollector::Key, size_t, PstatsCollector::KeyHash> at;
    const double interval = c.intervalSec();
    for (const auto& e : c.entries()) {
        PstatsCollector::Key k{basename(e.key.file), e.key.line, e.key.func};
        const double tt = static_cast<double>(e.direct) * interval;
        const double ct = static_cast<double>(e.cumulative) * interval;
        auto [it, inserted] = at.try_emplace(k, rows.size());
        if (inserted) {
            rows.push_back(Row{k.file, k.line, k.func, e.direct, e.cumulative, tt, ct});
        } else { // add_func_stats()
            Row& r = rows[it->second];
            r.direct += e.direct;
            r.cumulative += e.cumulative;
            r.tottime += tt;
            r.cumtime += ct;
        }
    }
    return rows;
}

void sortRows(std::vector<Row>& rows, Sort sort, uint64_t total) {
    auto pct = [total](uint64_t n) { return total > 0 ? double(n) / double(total) * 100 : 0.0; };
    auto desc = [&rows](auto key) {
        std::stable_sort(rows.begin(), rows.end(),
                         [&key](const Row& a, const Row& b) { return key(a) > key(b); });
    };
    switch (sort) {
    case Sort::Name:
        std::stable_sort(rows.begin(), rows.end(),
                         [](const Row& a, const Row& b) { return stdName(a) < stdName(b); });
        break;
    case Sort::NSamples:
        desc([](const Row& r) { return r.direct; });
        break;
    case Sort::TotTime:
        desc([](const Row& r) { return r.tottime; });
        break;
    case Sort::CumTime:
        desc([](const Row& r) { return r.cumtime; });
        break;
    case Sort::SamplePct:
        desc([&pct](const Row& r) { return pct(r.direct); });
        break;
    case Sort::CumulPct:
        desc([&pct](const Row& r) { return pct(r.cumulative); });
        break;
    case Sort::NSamplesCumul:
        desc([](const Row& r) { return r.cumulative; });
        break;
    }
}

void printSummary(std::FILE* out, const std::vector<Row>& rows, uint64_t total, const Colors& c) {
    std::fprintf(out, "\n%sSummary of Interesting Functions:%s\n", c.boldBlue, c.reset);
    // Aggregated by "file:function" (line numbers ignored), in row order.
    std::vector<Row> agg;
    std::unordered_map<std::string, size_t> at;
    for (const Row& r : rows) {
        const std::string q = r.file + ":" + r.func;
        auto [it, inserted] = at.try_emplace(q, agg.size());
        if (inserted) {
            const size_t colon = q.rfind(':'); // rsplit(":", 1), as CPython parses it back
            agg.push_back(Row{q.substr(0, colon), 0, q.substr(colon + 1), 0, 0, 0, 0});
        }
        Row& a = agg[it->second];
        a.direct += r.direct;
        a.cumulative += r.cumulative;
        a.tottime += r.tottime;
        a.cumtime += r.cumtime;
    }
    const auto name = [&c](const Row& r) {
        return std::string(c.green) + r.file + c.reset + ":" + c.yellow + c.reset + "(" + c.cyan +
               r.func + c.reset + ")";
    };
    const auto pct = [total](uint64_t n) {
        return total > 0 ? double(n) / double(total) * 100 : 0.0;
    };
    const auto top = [&](const char* title, const std::function<double(const Row&)>& key,
                         const std::function<std::string(const Row&)>& line) {
        std::fprintf(out, "\n%s%s:%s\n", c.boldBlue, title, c.reset);
        std::vector<Row> sorted = agg;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [&key](const Row& a, const Row& b) { return key(a) > key(b); });
        for (size_t i = 0; i < sorted.size() && i < 3; ++i)
            if (const std::string s = line(sorted[i]); !s.empty()) put(out, "  " + s + "\n");
    };
    top(
        "Functions with Highest Direct/Cumulative Ratio (Hot Spots)",
        [](const Row& r) { return r.cumulative > 0 ? double(r.direct) / double(r.cumulative) : 0; },
        [&](const Row& r) -> std::string {
            if (r.direct == 0 || r.cumulative == 0) return {};
            return fmt("%.3f", double(r.direct) / double(r.cumulative)) +
                   " direct/cumulative ratio, " + fmt("%.1f", pct(r.direct)) +
                   "% direct samples: " + name(r);
        });
    top(
        "Functions with Highest Call Frequency (Indirect Calls)",
        [](const Row& r) { return double(int64_t(r.cumulative) - int64_t(r.direct)); },
        [&](const Row& r) -> std::string {
            if (r.cumulative <= r.direct) return {};
            return std::to_string(r.cumulative - r.direct) + " indirect calls, " +
                   fmt("%.1f", pct(r.cumulative)) + "% total stack presence: " + name(r);
        });
    top(
        "Functions with Highest Call Magnification (Cumulative/Direct)",
        [](const Row& r) { return r.direct > 0 ? double(r.cumulative) / double(r.direct) : 0; },
        [&](const Row& r) -> std::string {
            if (r.direct == 0 || r.cumulative <= r.direct) return {};
            return fmt("%.1f", double(r.cumulative) / double(r.direct)) + "x call magnification, " +
                   std::to_string(r.cumulative - r.direct) + " indirect calls from " +
                   std::to_string(r.direct) + " direct: " + name(r);
        });
}

} // namespace

bool parseSort(const std::string& name, Sort& out) {
    static const std::pair<const char*, Sort> names[] = {
        {"nsamples", Sort::NSamples},  {"tottime", Sort::TotTime},
        {"cumtime", Sort::CumTime},    {"sample-pct", Sort::SamplePct},
        {"cumul-pct", Sort::CumulPct}, {"nsamples-cumul", Sort::NSamplesCumul},
        {"name", Sort::Name}};
    for (const auto& [n, s] : names)
        if (name == n) {
            out = s;
            return true;
        }
    return false;
}

bool canColorize(int fd) {
    const char* pc = std::getenv("PYTHON_COLORS");
    if (pc && std::string(pc) == "0") return false;
    if (pc && std::string(pc) == "1") return true;
    if (const char* v = std::getenv("NO_COLOR"); v && *v) return false;
    if (const char* v = std::getenv("FORCE_COLOR"); v && *v) return true;
    if (const char* v = std::getenv("TERM"); v && std::string(v) == "dumb") return false;
    return isatty(fd) == 1;
}

void PstatsCollector::printTable(std::FILE* out, const TableOptions& o) const {
    Colors c;
    if (o.color) c = Colors{"\x1b[1;34m", "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[0m"};
    std::vector<Row> rows = strippedRows(*this);
    if (rows.empty()) {
        std::fprintf(out, "No samples were collected.\n");
        if (o.cpuMode)
            std::fprintf(out, "This can happen in CPU mode when all threads are idle.\n");
        return;
    }
    uint64_t total = 0;
    for (const Row& r : rows)
        total += r.direct;
    sortRows(rows, o.sort, total);
    // stats_list[:limit]
    const long n = static_cast<long>(rows.size());
    const long keep = o.limit >= 0 ? std::min(o.limit, n) : std::max(0L, n + o.limit);
    rows.resize(static_cast<size_t>(keep));

    double maxTot = 0, maxCum = 0;
    for (const Row& r : rows) {
        maxTot = std::max(maxTot, r.tottime);
        maxCum = std::max(maxCum, r.cumtime);
    }
    const auto [totUnit, totScale] = bestUnit(maxTot);
    const auto [cumUnit, cumScale] = bestUnit(maxCum);
    const std::string totHead = std::string("tottime (") + totUnit + ")";
    const std::string cumHead = std::string("cumtime (") + cumUnit + ")";
    const size_t totW = std::max<size_t>(12, displayWidth(totHead));
    const size_t cumW = std::max<size_t>(12, displayWidth(cumHead));

    std::fprintf(out, "%sProfile Stats:%s\n", c.boldBlue, c.reset);
    const auto head = [&c](const std::string& s) { return c.boldBlue + s + c.reset; };
    std::fprintf(out, "%s  %s  %s  %s  %s  %s\n", head(padLeft("nsamples", 15)).c_str(),
                 head(padLeft("sample%", 8)).c_str(), head(padLeft(totHead, totW)).c_str(),
                 head(padLeft("cumul%", 8)).c_str(), head(padLeft(cumHead, cumW)).c_str(),
                 head("filename:lineno(function)").c_str());
    const auto pct = [total](uint64_t v) {
        return total > 0 ? double(v) / double(total) * 100 : 0.0;
    };
    for (const Row& r : rows) {
        const std::string ns = std::to_string(r.direct) + "/" + std::to_string(r.cumulative);
        std::fprintf(out, "%s  %8.1f  %*.3f  %8.1f  %*.3f  ", padLeft(ns, 15).c_str(),
                     pct(r.direct), static_cast<int>(totW), r.tottime * totScale, pct(r.cumulative),
                     static_cast<int>(cumW), r.cumtime * cumScale);
        put(out, c.green + r.file + c.reset + ":" + c.yellow + std::to_string(r.line) + c.reset +
                     "(" + c.cyan + r.func + c.reset + ")\n");
    }
    std::fprintf(out, "\n%sLegend:%s\n", c.boldBlue, c.reset);
    const char* legend[][2] = {
        {"nsamples", "Direct/Cumulative samples (direct executing / on call stack)"},
        {"sample%", "Percentage of total samples this function was directly executing"},
        {"tottime", "Estimated total time spent directly in this function"},
        {"cumul%", "Percentage of total samples when this function was on the call stack"},
        {"cumtime", "Estimated cumulative time (including time in called functions)"},
        {"filename:lineno(function)", "Function location and name"}};
    for (const auto& l : legend)
        std::fprintf(out, "  %s%s%s: %s\n", c.yellow, l[0], c.reset, l[1]);
    if (o.summary && !rows.empty()) printSummary(out, rows, total, c);
}

} // namespace gilscope::pstats
