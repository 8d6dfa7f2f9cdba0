#pragma once

// Draws one frame of the `--live` view with ncurses (on the view's thread, between
// newterm and endwin): a status line, the keys, a note, and the table, cut to the
// terminal's size.

#include "tui/live_table.h"

#include <string>

namespace gilscope::tui {

struct LiveFrame {
    std::string status;  // the recording's figures
    std::string choices; // sort, threads, state, keys
    std::string note;    // a filter that cannot match, the end of the recording, ...
    const LiveTable* table = nullptr;
    std::string empty; // what an empty table says
};

void drawLiveFrame(const LiveFrame& frame);

} // namespace gilscope::tui
