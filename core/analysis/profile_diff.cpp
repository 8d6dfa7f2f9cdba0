#include "core/analysis/profile_diff.h"

#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"
#include "core/tach/tach_reader.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

namespace gilscope {

namespace {

double pct(uint64_t n, uint64_t of) {
    return of ? 100.0 * static_cast<double>(n) / static_cast<double>(of) : 0.0;
}

// Shared ids for (name, file) across two snapshots, so functions of either side compare.
class FunctionKeys {
public:
    uint32_t id(const FunctionInfo& f) {
        std::string key = f.name;
        key += '\0';
        key += f.file;
        return ids_.try_emplace(std::move(key), uint32_t(ids_.size())).first->second;
    }
    std::vector<uint32_t> idsOf(const ProfileSnapshot& s) {
        std::vector<uint32_t> out;
        out.reserve(s.functions.size());
        for (const FunctionInfo& f : s.functions)
            out.push_back(id(f));
        return out;
    }
    size_t size() const { return ids_.size(); }

private:
    std::unordered_map<std::string, uint32_t> ids_;
};

bool samplesEveryThread(int mode) {
    return mode == int(ProfilingMode::Wall) || mode == int(ProfilingMode::All);
}

} // namespace

Result<ProfileFile> loadProfileFile(const std::filesystem::path& path,
                                    const ProgressCallback& progress, const CancelToken* cancel) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return makeError(ErrorKind::Io, "Input file not found: " + path.string());
    auto reader = TachReader::open(path);
    if (!reader) return reader.error();
    ProfileFile out{std::make_shared<ProfileModel>(), reader->info(), {}};
    for (const ProcessCounters& c : reader->counters())
        out.counters.add(c);
    if (auto replayed = reader->replay(*out.model, progress, cancel); !replayed)
        return replayed.error();
    return out;
}

std::vector<DiffRow> diffFunctions(const ProfileSnapshot& baseline, const ProfileSnapshot& current,
                                   size_t limit) {
    FunctionKeys keys;
    const std::vector<uint32_t> curKey = keys.idsOf(current);
    const std::vector<uint32_t> baseKey = keys.idsOf(baseline);
    std::vector<DiffRow> rows(keys.size());
    std::vector<bool> seen(keys.size(), false);
    for (const FunctionRow& r : functionTable(current)) {
        DiffRow& d = rows[curKey[r.func]];
        const FunctionInfo& f = current.functions[r.func];
        d.function = f.name;
        d.file = f.file;
        d.line = f.firstLine;
        d.currentFunc = r.func;
        d.curOwn = r.own;
        d.curTotal = r.total;
        seen[curKey[r.func]] = true;
    }
    for (const FunctionRow& r : functionTable(baseline)) {
        DiffRow& d = rows[baseKey[r.func]];
        if (!seen[baseKey[r.func]]) {
            const FunctionInfo& f = baseline.functions[r.func];
            d.function = f.name;
            d.file = f.file;
            d.line = f.firstLine;
            seen[baseKey[r.func]] = true;
        }
        d.baseOwn = r.own;
        d.baseTotal = r.total;
    }
    std::vector<DiffRow> out;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (!seen[i]) continue;
        DiffRow& d = rows[i];
        d.baseOwnPct = pct(d.baseOwn, baseline.matchedSamples);
        d.baseTotalPct = pct(d.baseTotal, baseline.matchedSamples);
        d.curOwnPct = pct(d.curOwn, current.matchedSamples);
        d.curTotalPct = pct(d.curTotal, current.matchedSamples);
        out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(), [](const DiffRow& a, const DiffRow& b) {
        const double ta = std::abs(a.deltaTotal()), tb = std::abs(b.deltaTotal());
        if (ta != tb) return ta > tb;
        const double oa = std::abs(a.deltaOwn()), ob = std::abs(b.deltaOwn());
        if (oa != ob) return oa > ob;
        if (a.function != b.function) return a.function < b.function;
        return a.file < b.file;
    });
    if (limit && out.size() > limit) out.resize(limit);
    return out;
}

std::string profilingModeName(std::optional<int> mode) {
    switch (mode.value_or(-1)) {
    case int(ProfilingMode::Wall):
        return "wall";
    case int(ProfilingMode::Cpu):
        return "cpu";
    case int(ProfilingMode::Gil):
        return "gil";
    case int(ProfilingMode::All):
        return "all";
    case int(ProfilingMode::Exception):
        return "exception";
    default:
        return "unknown";
    }
}

std::optional<std::string> incomparableReason(std::optional<int> baselineMode,
                                              std::optional<int> currentMode, StateFilter state) {
    const int b = baselineMode.value_or(-1), c = currentMode.value_or(-1);
    if (b < 0 || c < 0 || b == c) return std::nullopt; // unknown: the user knows best
    const std::string which = "the baseline was recorded in " + profilingModeName(b) +
                              " mode, the current recording in " + profilingModeName(c) + " mode";
    if (!samplesEveryThread(b) || !samplesEveryThread(c))
        return which + ": they sampled different threads, so their shares do not compare";
    if (state == StateFilter::OnCpu)
        return which + ": a wall-mode recording has no CPU state to filter on";
    return std::nullopt;
}

std::optional<std::string> incomparableFeatures(std::optional<int> baselineFeatures,
                                                std::optional<int> currentFeatures) {
    if (baselineFeatures.value_or(-1) < 0 || currentFeatures.value_or(-1) < 0) return std::nullopt;
    // What changes the threads or the frames a stack holds; opcodes and --blocking do not.
    struct Feature {
        int bit;
        const char* what;
    };
    static const Feature kShape[] = {{CaptureFeature::AllThreads, "every thread (-a)"},
                                     {CaptureFeature::Native, "<native> frames (--native)"},
                                     {CaptureFeature::Gc, "<GC> frames (no --no-gc)"}};
    std::string out;
    for (const Feature& f : kShape) {
        const bool b = *baselineFeatures & f.bit, c = *currentFeatures & f.bit;
        if (b == c) continue;
        out += std::string(out.empty() ? "" : "; ") + "the baseline was recorded " +
               (b ? "with " : "without ") + f.what + ", the current recording " +
               (c ? "with them" : "without them");
    }
    if (out.empty()) return std::nullopt;
    return out + ": their threads or stacks differ, so their shares do not compare";
}

uint64_t functionKey(const FunctionInfo& f) {
    std::string key = f.name;
    key += '\0';
    key += f.file;
    return std::hash<std::string>{}(key);
}

uint64_t childPathKey(uint64_t parentPath, uint64_t function) {
    // splitmix64's finaliser over the pair: order matters, a->b is not b->a.
    uint64_t z = parentPath * 0x9E3779B97F4A7C15ull + function + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

ShareTable shareTable(const ProfileSnapshot& s) {
    ShareTable out;
    out.samples = s.matchedSamples;
    std::vector<uint64_t> keys;
    keys.reserve(s.functions.size());
    for (const FunctionInfo& f : s.functions)
        keys.push_back(functionKey(f));
    for (const FunctionRow& r : functionTable(s))
        out.functionTotalPct[keys[r.func]] += pct(r.total, s.matchedSamples);
    const CallTree tree = shownTree(s); // the paths the flame graph draws
    if (tree.empty()) return out;
    const uint64_t all = tree.total(0);
    std::vector<std::pair<uint32_t, uint64_t>> todo{{0, 0}}; // node, its path key
    while (!todo.empty()) {
        const auto [n, path] = todo.back();
        todo.pop_back();
        for (uint32_t c : tree.children(n)) {
            const uint64_t childPath = childPathKey(path, keys[tree.func(c)]);
            out.pathTotalPct[childPath] += pct(tree.total(c), all);
            todo.push_back({c, childPath});
        }
    }
    return out;
}

namespace {

std::string location(const DiffRow& r) {
    std::string out = escapeForDisplay(r.file);
    if (r.line >= 0) out += ":" + std::to_string(r.line);
    return out + "(" + escapeForDisplay(r.function) + ")";
}

} // namespace

std::string diffText(const DiffSide& baseline, const DiffSide& current,
                     const std::vector<DiffRow>& rows) {
    std::string out = "Baseline: " + escapeForDisplay(baseline.path) + " (" +
                      std::to_string(baseline.samples) + " samples, " +
                      profilingModeName(baseline.mode) + " mode)\n";
    out += "Current:  " + escapeForDisplay(current.path) + " (" + std::to_string(current.samples) +
           " samples, " + profilingModeName(current.mode) + " mode)\n";
    out += "Shares are of each side's samples; changes in percentage points, largest first.\n\n";
    char buf[160];
    std::snprintf(buf, sizeof buf, "%10s %10s %9s %10s %10s %9s  %s\n", "base tot%", "cur tot%",
                  "change", "base own%", "cur own%", "change", "filename:lineno(function)");
    out += buf;
    for (const DiffRow& r : rows) {
        std::snprintf(buf, sizeof buf, "%10.2f %10.2f %+9.2f %10.2f %10.2f %+9.2f  ",
                      r.baseTotalPct, r.curTotalPct, r.deltaTotal(), r.baseOwnPct, r.curOwnPct,
                      r.deltaOwn());
        out += buf + location(r) + "\n";
    }
    return out;
}

nlohmann::ordered_json diffJson(const DiffSide& baseline, const DiffSide& current,
                                StateFilter state, const std::vector<DiffRow>& rows) {
    auto side = [](const DiffSide& s) {
        return nlohmann::ordered_json{{"path", sanitizeUtf8(s.path)},
                                      {"recorded_mode", profilingModeName(s.mode)},
                                      {"samples", s.samples}};
    };
    nlohmann::ordered_json out;
    out["mode"] = std::string(stateFilterName(state));
    out["baseline"] = side(baseline);
    out["current"] = side(current);
    auto& list = out["rows"] = nlohmann::ordered_json::array();
    for (const DiffRow& r : rows)
        list.push_back({{"function", sanitizeUtf8(r.function)},
                        {"file", sanitizeUtf8(r.file)},
                        {"line", r.line},
                        {"baseline_total_pct", r.baseTotalPct},
                        {"current_total_pct", r.curTotalPct},
                        {"delta_total_pct", r.deltaTotal()},
                        {"baseline_own_pct", r.baseOwnPct},
                        {"current_own_pct", r.curOwnPct},
                        {"delta_own_pct", r.deltaOwn()},
                        {"baseline_total", r.baseTotal},
                        {"current_total", r.curTotal},
                        {"baseline_own", r.baseOwn},
                        {"current_own", r.curOwn}});
    return out;
}

} // namespace gilscope
