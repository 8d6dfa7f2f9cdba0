#include "core/analysis/scaling_report.h"

#include "core/analysis/profile_views.h"
#include "core/sample/frame_registry.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace gilscope {

namespace {

// Each function's inclusive samples in one state.
Result<std::unordered_map<uint32_t, uint64_t>> totalsIn(const ProfileModel& model,
                                                        ProfileFilter filter, StateFilter state,
                                                        const CancelToken* cancel) {
    filter.state = state;
    auto snap = model.query(filter, cancel);
    if (!snap) return snap.error();
    std::unordered_map<uint32_t, uint64_t> totals;
    for (const FunctionRow& r : functionTable(**snap))
        totals[r.func] = r.total;
    return totals;
}

const char* partName(int part, bool freeThreaded) {
    switch (ScalingPart(part)) {
    case kRanPython:
        return "python";
    case kRanC:
        return "c_on_cpu";
    case kStoppedOrGilWait:
        return freeThreaded ? "stopped" : "gil_wait";
    case kLockWait:
        return "lock";
    case kIoWait:
        return "io";
    case kSleepPoll:
        return "sleep_poll";
    default:
        return "other";
    }
}

double pct(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

std::string frameText(const ProfileSnapshot& s, StackId stack) {
    // The innermost real frame: the wait and label pseudo-frames name no code ("~").
    for (uint32_t n = uint32_t(stack.index()); n != 0 && n < s.nodes.size();
         n = s.nodes[n].parent) {
        const StackNode& node = s.nodes[n];
        if (node.func >= s.functions.size()) continue;
        const FunctionInfo& f = s.functions[node.func];
        if (f.file == kPseudoFrameFile) continue;
        const int32_t line = node.line < s.lines.size() ? s.lines[node.line].line : f.firstLine;
        return f.file + ":" + std::to_string(line) + "(" + f.name + ")";
    }
    return {};
}

void parallelismJson(nlohmann::ordered_json& j, const ParallelismSummary& p) {
    j["ticks"] = p.ticks;
    j["cpus"] = p.cpus;
    j["ceiling"] = p.ceiling;
    j["mean_running"] = p.meanRunning;
    j["mean_wanting"] = p.meanWanting;
    j["peak_running"] = p.peakRunning;
    j["ticks_at_ceiling"] = p.ticksAtCeiling;
    j["ticks_by_running"] = p.ticksByRunning;
    j["late_samples"] = p.lateSamples;
}

} // namespace

Result<ScalingReport> scalingReport(const ProfileModel& model, const ProfileFilter& filter,
                                    size_t limit, const CancelToken* cancel) {
    ScalingReport out;
    auto par = model.parallelism(filter, cancel);
    if (!par) return par.error();
    out.parallelism = par->summary;
    out.freeThreaded = par->freeThreaded;
    ProfileFilter all = filter;
    all.state = StateFilter::All;
    auto snap = model.query(all, cancel);
    if (!snap) return snap.error();
    const ProfileSnapshot& s = **snap;
    out.intervalUs = s.intervalUs;
    out.samples = s.matchedSamples;
    std::vector<FunctionRow> table = functionTable(s);
    std::sort(table.begin(), table.end(),
              [](const FunctionRow& a, const FunctionRow& b) { return a.total > b.total; });
    if (limit && table.size() > limit) table.resize(limit);

    std::array<std::unordered_map<uint32_t, uint64_t>, kScalingParts> in;
    const std::pair<ScalingPart, StateFilter> direct[] = {
        {kRanPython, StateFilter::HoldingGil}, {kStoppedOrGilWait, StateFilter::WaitingForGil},
        {kLockWait, StateFilter::LockWait},    {kIoWait, StateFilter::IoWait},
        {kSleepPoll, StateFilter::Sleep},
    };
    for (const auto& [part, state] : direct) {
        auto totals = totalsIn(model, filter, state, cancel);
        if (!totals) return totals.error();
        in[part] = std::move(*totals);
    }
    auto poll = totalsIn(model, filter, StateFilter::Poll, cancel);
    if (!poll) return poll.error();
    for (const auto& [func, n] : *poll)
        in[kSleepPoll][func] += n;
    // C on a CPU: on a CPU, not running Python (the GIL's holder, or attached, is on one).
    auto onCpu = totalsIn(model, filter, StateFilter::OnCpu, cancel);
    if (!onCpu) return onCpu.error();
    in[kRanC] = std::move(*onCpu);

    for (const FunctionRow& r : table) {
        const FunctionInfo& f = s.functions[r.func];
        ScalingRow row{f.name, f.file, f.firstLine, r.total, {}};
        const auto get = [&](int part) {
            const auto it = in[size_t(part)].find(r.func);
            return it == in[size_t(part)].end() ? uint64_t(0) : it->second;
        };
        uint64_t sum = 0;
        for (int part = 0; part < kOtherPart; ++part) {
            uint64_t v = get(part);
            if (part == kRanC) v = v > get(kRanPython) ? v - get(kRanPython) : 0;
            v = std::min(v, r.total - std::min(r.total, sum)); // never more than the whole
            row.parts[size_t(part)] = v;
            sum += v;
        }
        row.parts[kOtherPart] = r.total - sum;
        out.rows.push_back(std::move(row));
    }
    return out;
}

std::string scalingText(const ScalingReport& r) {
    const ParallelismSummary& p = r.parallelism;
    std::string out;
    char buf[512];
    const char* running = r.freeThreaded ? "ran Python" : "held the GIL";
    std::snprintf(buf, sizeof buf,
                  "Parallelism over %llu ticks: on average %.2f threads %s at once (peak %u), "
                  "%.2f wanted to",
                  static_cast<unsigned long long>(p.ticks), p.meanRunning, running, p.peakRunning,
                  p.meanWanting);
    out += buf;
    if (r.freeThreaded)
        std::snprintf(buf, sizeof buf, "; %s CPUs: %.1f%% of ticks used them all.\n",
                      p.cpus ? std::to_string(p.cpus).c_str() : "unknown",
                      pct(p.ticksAtCeiling, p.ticks));
    else
        std::snprintf(buf, sizeof buf,
                      "; the GIL lets one run at a time: %.1f%% of ticks reached it.\n",
                      pct(p.ticksAtCeiling, p.ticks));
    out += buf;
    if (p.lateSamples)
        out += "Note: " + std::to_string(p.lateSamples) +
               " samples came too far out of time order to join their tick, and count as "
               "ticks of their own.\n";
    std::snprintf(buf, sizeof buf,
                  "Each function's time (inclusive, all its threads), split by what its threads "
                  "did:\n%9s %7s %7s %7s %7s %7s %7s %7s  %s\n",
                  "time (s)", "python", "C/cpu", r.freeThreaded ? "stopped" : "gilwait", "lock",
                  "io", "sleep", "other", "filename:firstlineno(function)");
    out += buf;
    for (const ScalingRow& row : r.rows) {
        std::snprintf(buf, sizeof buf, "%9.3f", double(row.total) * double(r.intervalUs) / 1e6);
        out += buf;
        for (uint64_t part : row.parts) {
            std::snprintf(buf, sizeof buf, " %6.1f%%", pct(part, row.total));
            out += buf;
        }
        out += "  " + escapeForDisplay(row.file) + ":" + std::to_string(row.line) + "(" +
               escapeForDisplay(row.function) + ")\n";
    }
    return out;
}

nlohmann::ordered_json scalingJson(const ScalingReport& r) {
    nlohmann::ordered_json j;
    j["free_threaded"] = r.freeThreaded;
    parallelismJson(j["parallelism"], r.parallelism);
    j["interval_us"] = r.intervalUs;
    j["samples"] = r.samples;
    j["rows"] = nlohmann::ordered_json::array();
    for (const ScalingRow& row : r.rows) {
        nlohmann::ordered_json x;
        x["function"] = sanitizeUtf8(row.function);
        x["file"] = sanitizeUtf8(row.file);
        x["line"] = row.line;
        x["total"] = row.total;
        for (int part = 0; part < kScalingParts; ++part)
            x[partName(part, r.freeThreaded)] = row.parts[size_t(part)];
        j["rows"].push_back(std::move(x));
    }
    return j;
}

Result<PauseReport> pauseReport(const ProfileModel& model, const ProfileFilter& filter,
                                size_t limit, const CancelToken* cancel) {
    PauseReport out;
    auto par = model.parallelism(filter, cancel);
    if (!par) return par.error();
    ProfileFilter all = filter;
    all.state = StateFilter::All;
    auto snap = model.query(all, cancel);
    if (!snap) return snap.error();
    const ProfileSnapshot& s = **snap;
    out.freeThreaded = par->freeThreaded;
    out.ticks = par->summary.ticks;
    out.recordedSec = double(s.lastUs - std::min(s.lastUs, s.originUs)) / 1e6;
    std::vector<PauseRow> rows;
    for (const StopTheWorldPause& p : par->pauses) {
        PauseRow row;
        row.startSec = double(p.firstUs - std::min(p.firstUs, s.originUs)) / 1e6;
        row.durationMs = double(p.durationUs) / 1e3;
        row.lostMs = double(p.lostUs) / 1e3;
        row.stopped = p.maxStopped;
        if (p.requester && p.requester->index() < s.threads.size()) {
            const ProfileThread& t = s.threads[p.requester->index()];
            row.requesterTid = t.threadId;
            row.requesterName = t.name;
            row.requesterFrame = frameText(s, p.requesterStack);
        }
        out.pausedMs += row.durationMs;
        out.lostMs += row.lostMs;
        rows.push_back(std::move(row));
    }
    out.pauses = rows.size();
    std::stable_sort(rows.begin(), rows.end(),
                     [](const PauseRow& a, const PauseRow& b) { return a.lostMs > b.lostMs; });
    if (limit && rows.size() > limit) rows.resize(limit);
    out.rows = std::move(rows);
    return out;
}

std::string pauseText(const PauseReport& r) {
    std::string out;
    char buf[512];
    if (!r.freeThreaded)
        return "No stop-the-world pauses: the recording is of a Python with a GIL, whose "
               "threads are never stopped by one (a free-threaded build's are: GC, fork, "
               "sys._current_frames).\n";
    std::snprintf(buf, sizeof buf,
                  "Stop-the-world pauses seen: %zu over %.3f s, %.1f ms in all; the threads they "
                  "stopped lost %.1f ms.\n",
                  r.pauses, r.recordedSec, r.pausedMs, r.lostMs);
    out += buf;
    if (r.rows.empty()) return out;
    std::snprintf(buf, sizeof buf, "%10s %10s %8s %10s  %s\n", "start (s)", "length ms", "stopped",
                  "lost ms", "asked by (thread, where)");
    out += buf;
    for (const PauseRow& row : r.rows) {
        std::snprintf(buf, sizeof buf, "%10.3f %10.1f %8u %10.1f  ", row.startSec, row.durationMs,
                      row.stopped, row.lostMs);
        out += buf;
        if (row.requesterTid == 0) {
            out += "(no attached thread seen)\n";
            continue;
        }
        out += std::to_string(row.requesterTid);
        if (!row.requesterName.empty()) out += " \"" + escapeForDisplay(row.requesterName) + "\"";
        if (!row.requesterFrame.empty()) out += " " + escapeForDisplay(row.requesterFrame);
        out += "\n";
    }
    return out;
}

nlohmann::ordered_json pauseJson(const PauseReport& r) {
    nlohmann::ordered_json j;
    j["free_threaded"] = r.freeThreaded;
    j["pauses"] = r.pauses;
    j["paused_ms"] = r.pausedMs;
    j["lost_ms"] = r.lostMs;
    j["rows"] = nlohmann::ordered_json::array();
    for (const PauseRow& row : r.rows) {
        nlohmann::ordered_json x;
        x["start_s"] = row.startSec;
        x["duration_ms"] = row.durationMs;
        x["stopped_threads"] = row.stopped;
        x["lost_ms"] = row.lostMs;
        x["requester_tid"] = row.requesterTid;
        x["requester_name"] = sanitizeUtf8(row.requesterName);
        x["requester_frame"] = sanitizeUtf8(row.requesterFrame);
        j["rows"].push_back(std::move(x));
    }
    return j;
}

} // namespace gilscope
