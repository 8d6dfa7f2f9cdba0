#pragma once

#include "core/common/error.h"

#include <cstdint>
#include <string_view>

namespace gilscope {

// Parses a sampling rate exactly as CPython's profiling.sampling CLI does
// (`-r/--sampling-rate`): the text is stripped and lower-cased, must match
// ^(\d+(?:\.\d+)?)(hz|khz|k)?$ (a bare number is Hz), and the result is the
// sampling interval in µs, int(1_000_000 / hz) truncated. Errors (BadArguments)
// carry CPython's wording, quoting the stripped, lower-cased text.
Result<uint64_t> parseSamplingRate(std::string_view text);

} // namespace gilscope
