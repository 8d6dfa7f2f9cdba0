#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gilscope {

// Numeric field `field` (1-based, as proc(5) numbers them; 3 and on) of the text of a
// /proc/PID/stat or /proc/PID/task/TID/stat file. The command name (field 2) may hold
// spaces and parentheses, so fields are counted after its last ')'. nullopt when the
// field is missing or not a number.
std::optional<uint64_t> procStatField(std::string_view stat, int field);

} // namespace gilscope
