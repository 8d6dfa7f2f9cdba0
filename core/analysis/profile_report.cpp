#include "core/analysis/profile_report.h"

#include "core/analysis/profile_views.h"
#include "core/gecko/opcode_names.h"
#include "core/sample/sample_label.h"
#include "core/sample/wait_reason.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace gilscope {

std::optional<ReportSort> parseReportSort(std::string_view name) {
    if (name == "own" || name == "tottime" || name == "nsamples" || name == "sample-pct")
        return ReportSort::Own;
    if (name == "total" || name == "cumtime" || name == "cumul-pct") return ReportSort::Total;
    if (name == "name") return ReportSort::Name;
    if (name == "file" || name == "filename") return ReportSort::File;
    return std::nullopt;
}

namespace {

// One row per wait leaf function: its samples (always its own: a leaf), and the caller
// node's function and line that waits there most.
std::vector<ReportRow> waitRows(const ProfileSnapshot& s) {
    std::map<uint32_t, ReportRow> byFunc;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sites; // (wait func, caller line)
    for (size_t n = 1; n < s.nodes.size() && n < s.selfCounts.size(); ++n) {
        const uint64_t count = s.selfCounts[n];
        const StackNode& node = s.nodes[n];
        if (count == 0 || node.func >= s.functions.size()) continue;
        const FunctionInfo& f = s.functions[node.func];
        if (!waitReasonOfFrame(f.file, f.name)) continue;
        ReportRow& row = byFunc[node.func];
        row.function = f.name;
        row.file = f.file;
        row.line = 0;
        row.own += count;
        row.total += count;
        if (node.parent != 0 && node.parent < s.nodes.size())
            sites[{node.func, s.nodes[node.parent].line}] += count;
    }
    for (const auto& [key, count] : sites) {
        ReportRow& row = byFunc[key.first];
        if (count <= row.callSiteSamples || key.second >= s.lines.size()) continue;
        const LineKey& line = s.lines[key.second];
        if (line.func >= s.functions.size()) continue;
        const FunctionInfo& caller = s.functions[line.func];
        row.callSite = caller.file + ":" + std::to_string(line.line) + "(" + caller.name + ")";
        row.callSiteSamples = count;
    }
    std::vector<ReportRow> rows;
    for (auto& [func, row] : byFunc)
        rows.push_back(std::move(row));
    return rows;
}

// One row per (line, opcode) of the leaf frames that carry one.
std::vector<ReportRow> opcodeRows(const ProfileSnapshot& s, int pythonMinor) {
    std::map<std::pair<uint32_t, uint8_t>, uint64_t> counts;
    for (size_t n = 1; n < s.nodes.size() && n < s.selfCounts.size(); ++n)
        if (s.selfCounts[n] && s.nodes[n].opcode() != kNoOpcode)
            counts[{s.nodes[n].line, s.nodes[n].opcode()}] += s.selfCounts[n];
    std::vector<ReportRow> rows;
    for (const auto& [key, count] : counts) {
        const LineKey& k = s.lines[key.first];
        const FunctionInfo& f = s.functions[k.func];
        const OpcodeInfo op = opcodeInfo(key.second, pythonMinor);
        ReportRow row{f.name, f.file, k.line, count, count, {}, 0, {}, {}, false};
        row.opcode = op.opname;
        row.baseOpcode = op.baseOpname;
        row.specialized = op.isSpecialized;
        rows.push_back(std::move(row));
    }
    return rows;
}

// One row per value of the label `key`, and one for the samples without it: the
// samples whose stack holds that value's frame, and the leaf function most of them end in.
std::vector<ReportRow> labelRows(const ProfileSnapshot& s, std::string_view key) {
    constexpr int32_t kNone = -1;
    std::vector<int32_t> valueOfFunc(s.functions.size(), kNone);
    std::vector<std::string> values;
    for (size_t f = 0; f < s.functions.size(); ++f)
        if (auto label = labelOfFrame(s.functions[f].file, s.functions[f].name);
            label && label->key == key) {
            valueOfFunc[f] = int32_t(values.size());
            values.emplace_back(label->value);
        }
    // Each node's value, from its own frame or its parent's (a parent is interned first).
    std::vector<int32_t> valueOf(s.nodes.size(), kNone);
    std::vector<uint64_t> samples(values.size() + 1, 0);
    std::vector<std::map<uint32_t, uint64_t>> leaves(values.size() + 1);
    // Node 0 is the empty stack (a thread seen with no frame): its samples have no label.
    for (size_t n = 0; n < s.nodes.size(); ++n) {
        const StackNode& node = s.nodes[n];
        const int32_t own =
            n > 0 && node.func < valueOfFunc.size() ? valueOfFunc[node.func] : kNone;
        valueOf[n] = own != kNone ? own : n > 0 && node.parent < n ? valueOf[node.parent] : kNone;
        const uint64_t count = n < s.selfCounts.size() ? s.selfCounts[n] : 0;
        if (count == 0) continue;
        const size_t slot = valueOf[n] == kNone ? values.size() : size_t(valueOf[n]);
        samples[slot] += count;
        leaves[slot][node.func] += count;
    }
    std::vector<ReportRow> rows;
    for (size_t v = 0; v <= values.size(); ++v) {
        if (samples[v] == 0) continue;
        ReportRow row;
        row.function = v < values.size() ? values[v] : "(no " + std::string(key) + ")";
        row.line = 0;
        row.own = row.total = samples[v];
        for (const auto& [func, count] : leaves[v]) {
            if (count <= row.callSiteSamples || func >= s.functions.size()) continue;
            const FunctionInfo& f = s.functions[func];
            row.callSite = f.file + ":" + std::to_string(f.firstLine) + "(" + f.name + ")";
            row.callSiteSamples = count;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace

std::vector<ReportRow> reportRows(const ProfileSnapshot& s, const ReportOptions& options) {
    std::vector<ReportRow> rows;
    if (options.by == ReportBy::Wait) {
        rows = waitRows(s);
    } else if (options.by == ReportBy::Label) {
        rows = labelRows(s, options.labelKey);
    } else if (options.by == ReportBy::Opcode) {
        rows = opcodeRows(s, options.pythonMinor);
    } else if (options.by == ReportBy::Function) {
        for (const FunctionRow& r : functionTable(s)) {
            const FunctionInfo& f = s.functions[r.func];
            rows.push_back({f.name, f.file, f.firstLine, r.own, r.total, {}, 0, {}, {}, false});
        }
    } else {
        for (const LineRow& r : lineTable(s)) {
            const LineKey& k = s.lines[r.line];
            const FunctionInfo& f = s.functions[k.func];
            rows.push_back({f.name, f.file, k.line, r.own, r.total, {}, 0, {}, {}, false});
        }
    }
    auto tie = [](const ReportRow& a, const ReportRow& b) {
        if (a.total != b.total) return a.total > b.total;
        if (a.function != b.function) return a.function < b.function;
        if (a.file != b.file) return a.file < b.file;
        if (a.line != b.line) return a.line < b.line;
        return a.opcode < b.opcode;
    };
    std::sort(rows.begin(), rows.end(), [&](const ReportRow& a, const ReportRow& b) {
        switch (options.sort) {
        case ReportSort::Own:
            if (a.own != b.own) return a.own > b.own;
            break;
        case ReportSort::Total:
            break;
        case ReportSort::Name:
            if (a.function != b.function) return a.function < b.function;
            break;
        case ReportSort::File:
            if (a.file != b.file) return a.file < b.file;
            if (a.line != b.line) return a.line < b.line;
            break;
        }
        return tie(a, b);
    });
    if (options.limit && rows.size() > options.limit) rows.resize(options.limit);
    return rows;
}

namespace {

double pct(uint64_t n, uint64_t of) {
    return of ? 100.0 * static_cast<double>(n) / of : 0.0;
}
double seconds(const ProfileSnapshot& s, uint64_t n) {
    return static_cast<double>(n) * static_cast<double>(s.intervalUs) / 1e6;
}

std::string describeFilter(const ProfileSnapshot& s) {
    std::string out = "mode " + std::string(stateFilterName(s.filter.state));
    char buf[128];
    if (s.filter.hasRange) {
        const double a = s.filter.startUs > s.originUs ? (s.filter.startUs - s.originUs) / 1e6 : 0;
        if (s.filter.endUs == UINT64_MAX)
            std::snprintf(buf, sizeof buf, ", range %.3f s to the end", a);
        else
            std::snprintf(buf, sizeof buf, ", range %.3f-%.3f s", a,
                          s.filter.endUs > s.originUs ? (s.filter.endUs - s.originUs) / 1e6 : 0);
        out += buf;
    }
    if (!s.filter.threads.empty()) {
        out += ", thread";
        if (s.filter.threads.size() > 1) out += "s";
        for (uint64_t t : s.filter.threads) {
            out += " " + std::to_string(t);
            for (const ProfileThread& known : s.threads)
                if (known.threadId == t && !known.name.empty())
                    out += " \"" + escapeForDisplay(known.name) + "\"";
        }
    }
    return out;
}

// The recording's threads, busiest first: id, name where known, samples in every state.
std::string threadList(const ProfileSnapshot& s) {
    constexpr size_t kShown = 20;
    std::vector<const ProfileThread*> threads;
    for (const ProfileThread& t : s.threads)
        threads.push_back(&t);
    std::stable_sort(threads.begin(), threads.end(),
                     [](auto* a, auto* b) { return a->samples > b->samples; });
    std::string out = "\nThreads (" + std::to_string(threads.size()) + "):\n";
    for (size_t i = 0; i < threads.size() && i < kShown; ++i) {
        const ProfileThread& t = *threads[i];
        out += "  " + std::to_string(t.threadId);
        if (!t.name.empty()) out += " \"" + escapeForDisplay(t.name) + "\"";
        if (t.mainThread) out += " (main)";
        out += ": " + std::to_string(t.samples) + " samples\n";
    }
    if (threads.size() > kShown)
        out += "  ... and " + std::to_string(threads.size() - kShown) + " more\n";
    return out;
}

} // namespace

std::string reportText(const ProfileSnapshot& s, const std::vector<ReportRow>& rows,
                       const ReportOptions& options) {
    std::string out;
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "Profile Stats (%s): %llu of %llu thread-samples, interval %.3f ms\n",
                  describeFilter(s).c_str(), static_cast<unsigned long long>(s.matchedSamples),
                  static_cast<unsigned long long>(s.recordedSamples), s.intervalUs / 1000.0);
    out += buf;
    if (!s.notKept.empty()) out += "Note: " + s.notKept + "\n";
    // The contention views: how many ticks had a waiter, and whose samples the table is.
    const char* contention = nullptr;
    if (s.filter.state == StateFilter::GilContention && s.freeThreaded)
        contention = "Stop-the-world: %llu ticks had threads stopped by a pause; the table is "
                     "what the threads still attached (the one that asked) ran then.\n";
    else if (s.filter.state == StateFilter::GilContention)
        contention = "GIL contention: %llu ticks had a thread waiting for the GIL; the table is "
                     "what the GIL holder ran then.\n";
    else if (s.filter.state == StateFilter::LockContention)
        contention = "Lock contention: %llu ticks had a thread waiting on a lock; the table is "
                     "what the threads on a CPU ran then.\n";
    if (contention) {
        std::snprintf(buf, sizeof buf, contention,
                      static_cast<unsigned long long>(s.contendedTicks));
        out += buf;
    }
    if (rows.empty() && options.by == ReportBy::Wait && s.matchedSamples > 0) {
        // Not "no samples": the samples carry no reason (issue 47 found the bare line).
        out += "No wait reasons in these samples: a recording has them only when made with "
               "--wait-reasons (the window always reads them), and only for samples off a "
               "CPU.\n";
        return out + threadList(s);
    }
    if (rows.empty()) {
        out += "No samples match.\n";
        return out + threadList(s);
    }
    if (options.by == ReportBy::Label && rows.size() == 1 && rows[0].line == 0 &&
        rows[0].function == "(no " + options.labelKey + ")")
        out += "No sample carries the label \"" + options.labelKey +
               "\": a recording has labels only when made with --label-from.\n";
    if (options.by == ReportBy::Wait || options.by == ReportBy::Label) {
        const bool wait = options.by == ReportBy::Wait;
        std::snprintf(buf, sizeof buf, "%10s %9s %10s  %-40s %s\n", "nsamples", "sample%",
                      "time (s)", wait ? "waiting in" : options.labelKey.c_str(),
                      wait ? "most from (share of that wait)" : "most in (share of that time)");
        out += buf;
        for (const ReportRow& r : rows) {
            std::snprintf(buf, sizeof buf, "%10llu %9.1f %10.3f  %-40s ",
                          static_cast<unsigned long long>(r.own), pct(r.own, s.matchedSamples),
                          seconds(s, r.own), escapeForDisplay(r.function).c_str());
            out += buf;
            if (!r.callSite.empty()) {
                std::snprintf(buf, sizeof buf, " (%.0f%%)", pct(r.callSiteSamples, r.own));
                out += escapeForDisplay(r.callSite) + buf;
            }
            out += "\n";
        }
        return out + threadList(s);
    }
    std::snprintf(buf, sizeof buf, "%15s %9s %12s %9s %12s  %s\n", "nsamples", "sample%",
                  "tottime (s)", "cumul%", "cumtime (s)",
                  options.by == ReportBy::Function ? "filename:firstlineno(function)"
                  : options.by == ReportBy::Opcode ? "filename:lineno(function) instruction"
                                                   : "filename:lineno(function)");
    out += buf;
    for (const ReportRow& r : rows) {
        const std::string counts = std::to_string(r.own) + "/" + std::to_string(r.total);
        std::snprintf(buf, sizeof buf, "%15s %9.1f %12.3f %9.1f %12.3f  ", counts.c_str(),
                      pct(r.own, s.matchedSamples), seconds(s, r.own),
                      pct(r.total, s.matchedSamples), seconds(s, r.total));
        out += buf;
        out += escapeForDisplay(r.file) + ":" + std::to_string(r.line) + "(" +
               escapeForDisplay(r.function) + ")";
        if (options.by == ReportBy::Opcode)
            out += " " + r.opcode + (r.specialized ? " (" + r.baseOpcode + ")" : "");
        out += "\n";
    }
    return out + threadList(s);
}

nlohmann::ordered_json reportJson(const ProfileSnapshot& s, const std::vector<ReportRow>& rows,
                                  const ReportOptions& options) {
    nlohmann::ordered_json j;
    j["mode"] = std::string(stateFilterName(s.filter.state));
    j["by"] = options.by == ReportBy::Line     ? "line"
              : options.by == ReportBy::Wait   ? "wait"
              : options.by == ReportBy::Opcode ? "opcode"
              : options.by == ReportBy::Label  ? "label:" + options.labelKey
                                               : std::string("function");
    if (s.filter.hasRange) {
        j["range_start_s"] =
            s.filter.startUs > s.originUs ? (s.filter.startUs - s.originUs) / 1e6 : 0.0;
        j["range_end_s"] = s.filter.endUs == UINT64_MAX
                               ? nlohmann::ordered_json(nullptr)
                               : nlohmann::ordered_json((s.filter.endUs - s.originUs) / 1e6);
    }
    j["threads"] = s.filter.threads;
    j["interval_us"] = s.intervalUs;
    j["recorded_samples"] = s.recordedSamples;
    j["matched_samples"] = s.matchedSamples;
    j["max_depth"] = deepestStack(s);
    if (!s.notKept.empty()) j["not_kept"] = s.notKept;
    if (isContention(s.filter.state)) j["contended_ticks"] = s.contendedTicks;
    auto& arr = j["rows"] = nlohmann::ordered_json::array();
    for (const ReportRow& r : rows) {
        nlohmann::ordered_json o;
        o["function"] = sanitizeUtf8(r.function);
        o["file"] = sanitizeUtf8(r.file);
        o["line"] = r.line;
        o["own"] = r.own;
        o["total"] = r.total;
        o["own_pct"] = pct(r.own, s.matchedSamples);
        o["total_pct"] = pct(r.total, s.matchedSamples);
        if (options.by == ReportBy::Label) {
            o["label"] = sanitizeUtf8(r.function);
            o["top_function"] = r.callSite.empty()
                                    ? nlohmann::ordered_json(nullptr)
                                    : nlohmann::ordered_json(sanitizeUtf8(r.callSite));
            o["top_function_samples"] = r.callSiteSamples;
        }
        if (options.by == ReportBy::Wait) {
            o["call_site"] = r.callSite.empty() ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(sanitizeUtf8(r.callSite));
            o["call_site_samples"] = r.callSiteSamples;
        }
        if (options.by == ReportBy::Opcode) {
            o["opcode"] = r.opcode;
            o["base_opcode"] = r.baseOpcode;
            o["specialized"] = r.specialized;
        }
        arr.push_back(std::move(o));
    }
    j["all_threads"] = nlohmann::ordered_json::array();
    for (const ProfileThread& t : s.threads)
        j["all_threads"].push_back(
            {{"thread_id", t.threadId},
             {"name", t.name.empty() ? nlohmann::ordered_json(nullptr)
                                     : nlohmann::ordered_json(sanitizeUtf8(t.name))},
             {"main", t.mainThread},
             {"samples", t.samples}});
    return j;
}

} // namespace gilscope
