#pragma once

#include "core/tach/tach_info.h"

#include <nlohmann/json.hpp>

namespace gilscope {

// CPython's BinaryReader.get_info() dict, same keys and nulls.
nlohmann::ordered_json tachInfoJson(const TachInfo& info);
// CPython's reader get_stats() dict.
nlohmann::ordered_json tachReaderStatsJson(const TachRecordStats& stats);

} // namespace gilscope
