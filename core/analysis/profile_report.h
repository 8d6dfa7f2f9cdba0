#pragma once

#include "core/analysis/profile_snapshot.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope {

// The top-functions (or top-lines) table of `gilscope report`, as rows ready to print.
// Wait: one row per wait leaf (--wait-reasons: "<lock wait>", "<read TCP 10.0.0.5:5432>"),
// with the call site that waits there most.
// Opcode: one row per (line, instruction) where samples ended (--opcodes), with the
// instruction's name in the target's Python: "this attribute load never specialised".
// Label: one row per value of the label KEY (--label-from), slowest first, with the
// function that spends most of that value's time.
enum class ReportBy { Function, Line, Wait, Opcode, Label };
enum class ReportSort { Own, Total, Name, File };

std::optional<ReportSort> parseReportSort(std::string_view name); // own|total|name|file
                                                                  // (+ Tachyon's aliases)

struct ReportRow {
    std::string function;
    std::string file;
    int32_t line = -1; // function: first line seen; line: the line
    uint64_t own = 0;
    uint64_t total = 0;
    // Wait rows: where the Python code waits there most, and its samples there. Label
    // rows: the function (leaf) that spends most of that value's samples.
    std::string callSite;
    uint64_t callSiteSamples = 0;
    // Opcode rows: "LOAD_ATTR_INSTANCE_VALUE", its base form "LOAD_ATTR", and whether it
    // is a specialisation.
    std::string opcode;
    std::string baseOpcode;
    bool specialized = false;
};

struct ReportOptions {
    ReportBy by = ReportBy::Function;
    ReportSort sort = ReportSort::Own;
    size_t limit = 15;    // 0: every row
    int pythonMinor = 0;  // the recording's 3.x, for opcode names (0: unknown)
    std::string labelKey; // ReportBy::Label
};

// Sorted rows (ties broken by total, then name) and cut to the limit.
std::vector<ReportRow> reportRows(const ProfileSnapshot& s, const ReportOptions& options);

// A pstats-like table: nsamples (own/total), sample%, tottime, cumul%, cumtime,
// filename:lineno(function); percentages of the kept samples. Names are escaped for
// a terminal.
std::string reportText(const ProfileSnapshot& s, const std::vector<ReportRow>& rows,
                       const ReportOptions& options);
nlohmann::ordered_json reportJson(const ProfileSnapshot& s, const std::vector<ReportRow>& rows,
                                  const ReportOptions& options);

} // namespace gilscope
