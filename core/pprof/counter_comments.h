#pragma once

#include "core/sample/process_counters.h"

#include <string>
#include <vector>

namespace gilscope::pprof {

// pprof has no counters: the process's memory, threads and CPU over a profile become
// comments (`go tool pprof -comments` prints them). One summary line, the interpreter's
// GC collections per generation where known, then one line per series of "ms:value"
// pairs from the first reading, at most kMaxCommentPoints each.
inline constexpr size_t kMaxCommentPoints = 256;
std::vector<std::string> counterComments(const CounterSeries& counters);

} // namespace gilscope::pprof
