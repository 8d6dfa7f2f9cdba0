#pragma once

#include "core/analysis/profile_snapshot.h"
#include "core/analysis/profile_views.h"
#include "core/common/error.h"
#include "core/sample/process_counters.h"
#include "core/tach/tach_info.h"
#include "core/util/cancel.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gilscope {

class ProfileModel;

// A .bin recording replayed into an analysis model (`report`, `diff`, the window's
// baseline), with what its header says (the recorded mode).
struct ProfileFile {
    std::shared_ptr<ProfileModel> model;
    TachInfo info;
    CounterSeries counters; // the process's memory, threads and CPU, from the side file
};
Result<ProfileFile> loadProfileFile(const std::filesystem::path& path,
                                    const ProgressCallback& progress = {},
                                    const CancelToken* cancel = nullptr);

// Two recordings compared function by function. Shares are of each side's kept samples,
// so recordings of different lengths or rates compare; a change is in percentage points.
// Functions are matched by (name, file): ids differ between recordings.
struct DiffRow {
    std::string function;
    std::string file;
    int32_t line = -1;                  // the current side's first line, else the baseline's
    uint32_t currentFunc = kNoFunction; // id in the current snapshot (absent: kNoFunction)
    uint64_t baseOwn = 0, baseTotal = 0, curOwn = 0, curTotal = 0;
    double baseOwnPct = 0, baseTotalPct = 0, curOwnPct = 0, curTotalPct = 0;
    double deltaOwn() const { return curOwnPct - baseOwnPct; }
    double deltaTotal() const { return curTotalPct - baseTotalPct; }
};

// Every function with samples on either side, largest change of total share first (then
// of own share, then by name). `limit` 0 keeps every row.
std::vector<DiffRow> diffFunctions(const ProfileSnapshot& baseline, const ProfileSnapshot& current,
                                   size_t limit = 0);

// Why two recordings made in these ProfilingModes (nullopt: unknown) cannot be compared
// under this state filter, or nullopt when they can. Wall and All both sample every
// thread, so they compare, except on CPU: a wall recording has no CPU state.
std::optional<std::string> incomparableReason(std::optional<int> baselineMode,
                                              std::optional<int> currentMode, StateFilter state);
// Why recordings with these CaptureFeature bits (nullopt or -1: unknown) cannot be
// compared, or nullopt: one sampled every thread and the other the main thread only, or
// one has <native> or <GC> frames the other lacks (CPython refuses any difference).
std::optional<std::string> incomparableFeatures(std::optional<int> baselineFeatures,
                                                std::optional<int> currentFeatures);
// "wall", "cpu", "gil", "all", "exception", or "unknown".
std::string profilingModeName(std::optional<int> mode);

// Keys that hold across recordings (function ids do not): a hash of a function's name
// and file, and of a frame's call path from the root (the root's path is 0).
uint64_t functionKey(const FunctionInfo& f);
uint64_t childPathKey(uint64_t parentPath, uint64_t function);

// One side of a comparison as the window uses it: total shares (points of the kept
// samples) by function key and by call path of the top-down tree.
struct ShareTable {
    uint64_t samples = 0;
    std::unordered_map<uint64_t, double> functionTotalPct;
    std::unordered_map<uint64_t, double> pathTotalPct;
};
ShareTable shareTable(const ProfileSnapshot& s);

// The `gilscope diff` outputs. Names are escaped for a terminal in the table.
struct DiffSide {
    std::string path;
    std::optional<int> mode;
    uint64_t samples = 0; // kept samples
};
std::string diffText(const DiffSide& baseline, const DiffSide& current,
                     const std::vector<DiffRow>& rows);
nlohmann::ordered_json diffJson(const DiffSide& baseline, const DiffSide& current,
                                StateFilter state, const std::vector<DiffRow>& rows);

} // namespace gilscope
