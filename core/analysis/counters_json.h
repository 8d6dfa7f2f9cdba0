#pragma once

#include "core/sample/process_counters.h"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace gilscope {

// `report --json`'s "counters": the process's memory, threads and CPU over [fromUs, toUs]
// (the report's range), a summary and the readings, times in seconds from originUs (the
// first sample, as --range counts). Null when no reading falls in the range.
nlohmann::ordered_json countersJson(const CounterSeries& counters, uint64_t originUs,
                                    uint64_t fromUs, uint64_t toUs);

} // namespace gilscope
