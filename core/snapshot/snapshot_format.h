#pragma once

#include "core/snapshot/process_snapshot.h"

#include <nlohmann/json.hpp>

#include <string>

namespace gilscope {

// A snapshot as `gilscope dump` prints it (py-spy's layout: each thread, its frames newest
// first with the source line under each, arguments and locals under that). Names are
// escaped so that every item stays on its line whatever the target calls it.
std::string snapshotText(const ProcessSnapshot& snapshot);

// The same as JSON (`dump --json`), every string valid UTF-8.
nlohmann::json snapshotJson(const ProcessSnapshot& snapshot);

// Every thread of `pid` now, with its variables, as one line of JSON (`dump -a --locals
// --json` on one line): the control socket's `snapshot`.
Result<std::string> snapshotLine(const std::shared_ptr<const target::AttachedProcess>& door);

// One variable's kind as a word: "argument", "local", "cell", "free".
const char* variableKindName(FrameVariable::Kind kind);

} // namespace gilscope
