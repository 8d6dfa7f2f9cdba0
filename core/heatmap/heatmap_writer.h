#pragma once

// Writes a heatmap folder from the analysis model's snapshot: index.html and one
// file_NNNN.html per source file (CPython's names), into an AtomicFolder.

#include "core/analysis/profile_snapshot.h"
#include "core/common/error.h"
#include "core/heatmap/heatmap_html.h"
#include "core/heatmap/source_text.h"
#include "core/util/atomic_folder.h"
#include "core/util/cancel.h"

#include <string_view>

namespace gilscope::heatmap {

// The entries a heatmap folder holds: an earlier one may be replaced by a new one.
bool isHeatmapEntry(std::string_view name);

// Writes every page into `folder` (not committed). Returns the number of file pages.
Result<size_t> writeHeatmap(const ProfileSnapshot& snapshot, SourceCache& sources,
                            const HeatmapSummary& summary, AtomicFolder& folder,
                            const CancelToken* cancel = nullptr);

} // namespace gilscope::heatmap
