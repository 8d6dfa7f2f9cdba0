#pragma once

// Geometry and lanes shared by the timeline's drawing (timeline_widget.cpp), its
// tracks' selection and expansion (timeline_tracks.cpp) and zoom, pan and hover
// (timeline_interaction.cpp); internal to the timeline.
#include "core/analysis/track_columns.h"
#include "core/session/live_timeline.h"

#include <QColor>

#include <iterator>

namespace gilscope::ui::timeline {

inline constexpr int kLabelWidth = 190;
inline constexpr int kTwistyWidth = 16;
inline constexpr int kTrackHeight = 22; // a compact track: name and state strip
inline constexpr int kStripInset = 3;   // the strip's margin inside its track
inline constexpr int kBandHeight = 3;   // exception / GC band under the strip
inline constexpr int kLaneHeight = 12;
inline constexpr int kLaneGap = 2;
inline constexpr int kLegendHeight = 20;
inline constexpr int kAxisHeight = 18;
inline constexpr int kNoteHeight = 20;
inline constexpr int kMargin = 4;

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
    // Why a thread off CPU waits (--wait-reasons; the window always reads it).
    {"Lock wait", QColor(200, 50, 120), &TimelineBucket::lockWait},
    {"I/O", QColor(0, 150, 160), &TimelineBucket::ioWait},
    {"Sleep/poll", QColor(175, 190, 215), &TimelineBucket::sleepPoll},
};
inline constexpr int kLaneCount = int(std::size(kLanes));
inline constexpr int kGilLane = 0, kWaitLane = 1, kCpuLane = 2, kExceptionLane = 3, kGcLane = 4,
                     kLockLane = 5, kIoLane = 6, kSleepPollLane = 7;
// Sampled, but neither on CPU nor near the GIL, and no known reason (or none read).
inline const QColor kIdleColor(150, 150, 150);

// A bucket's figures as a track column (counts of samples instead of µs).
inline TrackColumn trackColumnOf(const TimelineBucket& b) {
    TrackColumn c;
    c.state = b.states;
    c.onCpu = b.onCpu;
    c.exception = b.exception;
    c.gc = b.gc;
    return c;
}
inline constexpr int kExpandedHeight = kTrackHeight + kLaneCount * (kLaneHeight + kLaneGap) + 4;
inline constexpr int kPlotTop = kMargin + kLegendHeight + kAxisHeight;

// The process's counter tracks above the threads (timeline_counters.cpp), when the
// recording has counters: memory, threads, CPU, and the share of samples in GC; and, for
// any recording of more than one thread, how many ran Python at once (from the samples).
enum class CounterTrack { Memory, Threads, Cpu, Gc, Parallel };
inline constexpr int kCounterTrackCount = 5;
inline constexpr int kCounterTrackHeight = 20;

} // namespace gilscope::ui::timeline
