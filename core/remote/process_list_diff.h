#pragma once

#include "core/remote/process_scanner.h"

#include <optional>
#include <utility>
#include <vector>

namespace gilscope {

// What turns the process list shown now into a fresh scan, row by row, so a table
// model can apply it with row removals/insertions/changes instead of a reset: rows that
// survive keep their identity, and with it the user's selection and scroll position.
struct ProcessListChanges {
    std::vector<size_t> removedRows; // indexes into the current list, descending
    // (index into the list after removals, new values) for rows whose fields changed
    std::vector<std::pair<size_t, PythonProcessInfo>> changedRows;
    std::vector<PythonProcessInfo> appended; // new processes, in scan order
};

// Which row of a fresh scan each listed process is now. A process is identified by its
// pid and executable, so a recycled pid running another program counts as one process
// gone and a new one come.
struct ProcessListMatch {
    std::vector<std::optional<size_t>> freshRowOf; // per current row; nullopt: gone
    std::vector<size_t> newRows;                   // fresh rows no current row matched
};
ProcessListMatch matchProcessLists(const std::vector<PythonProcessInfo>& current,
                                   const std::vector<PythonProcessInfo>& fresh);

// The match as row changes (matchProcessLists' identity).
ProcessListChanges diffProcessLists(const std::vector<PythonProcessInfo>& current,
                                    const std::vector<PythonProcessInfo>& fresh);

// Applies changes to a plain vector (what the model does, minus the signals).
void applyProcessListChanges(std::vector<PythonProcessInfo>& list,
                             const ProcessListChanges& changes);

bool sameProcessFields(const PythonProcessInfo& a, const PythonProcessInfo& b);

} // namespace gilscope
