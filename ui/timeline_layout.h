#pragma once

// Geometry and lanes shared by timeline_widget.cpp (drawing) and
// timeline_interaction.cpp (zoom, pan, hover); internal to the timeline.
#include "core/live/live_timeline.h"

#include <QColor>

#include <iterator>

namespace gilscope::ui::timeline {

inline constexpr int kLabelWidth = 150;
inline constexpr int kLaneHeight = 12;
inline constexpr int kLaneGap = 2;
inline constexpr int kThreadHeaderHeight = 18;
inline constexpr int kThreadGap = 8;
inline constexpr int kFoldedHeight = 18; // a folded thread shown: its header line only
inline constexpr int kLegendHeight = 22;
inline constexpr int kAxisHeight = 20;
inline constexpr int kNoteHeight = 22;
inline constexpr int kMargin = 8;

struct Lane {
    const char* name;
    QColor color;
    uint32_t TimelineBucket::*count;
};

inline const Lane kLanes[] = {
    {"GIL held", QColor(46, 160, 67), &TimelineBucket::hasGil},
    {"Waiting for GIL", QColor(230, 120, 20), &TimelineBucket::gilRequested},
    {"On CPU", QColor(40, 110, 220), &TimelineBucket::onCpu},
    {"Exception", QColor(210, 40, 60), &TimelineBucket::exception},
    {"GC", QColor(160, 60, 190), &TimelineBucket::gc},
};
inline constexpr int kLaneCount = int(std::size(kLanes));
inline constexpr int kThreadHeight =
    kThreadHeaderHeight + kLaneCount * (kLaneHeight + kLaneGap) + kThreadGap;
inline constexpr int kPlotTop = kMargin + kLegendHeight + kAxisHeight;

} // namespace gilscope::ui::timeline
