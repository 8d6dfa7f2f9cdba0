#pragma once

#include "core/snapshot/process_snapshot.h"

class QTreeWidget;

namespace gilscope::ui {

// Fills a two-column tree (what, detail) from a snapshot: one item per thread (its name,
// state and what it waits on), its frames under it, newest first, with their source line,
// and each frame's variables folded under it. Threads and their frames start expanded.
void fillSnapshotTree(QTreeWidget* tree, const ProcessSnapshot& snapshot);

} // namespace gilscope::ui
