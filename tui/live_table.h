#pragma once

// What `--live` shows, without the terminal: the functions of an analysis snapshot as a
// top-like table (own and total share and samples), sorted, and the choices the keys
// cycle through. No ncurses here, so it is tested as plain data.

#include "core/analysis/profile_snapshot.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gilscope::tui {

enum class SortKey { Own, Total, Name }; // `s` cycles them
const char* sortName(SortKey k);         // "own", "total", "name"
SortKey nextSort(SortKey k);

// `f` cycles: all, on CPU, holding the GIL, waiting for the GIL.
StateFilter nextState(StateFilter s);

struct LiveRow {
    std::string function; // for the screen: escaped, one line
    std::string where;    // "file.py:12"
    uint64_t own = 0, total = 0;
    double ownPct = 0, totalPct = 0; // of the samples the filter kept
    // With --opcodes: the instruction most of its own samples ran, named from the target's
    // Python ("LOAD_ATTR_INSTANCE_VALUE (LOAD_ATTR) 62%"); empty without.
    std::string instruction;
};

struct LiveTable {
    uint64_t matched = 0;  // thread-samples the filter kept
    uint64_t recorded = 0; // thread-samples in the recording
    std::vector<LiveRow> rows;
};

LiveTable buildLiveTable(const ProfileSnapshot& s, SortKey sort);

// The recording's threads, most samples first (`t` steps through them, then "all").
std::vector<ProfileThread> threadsBySamples(const ProfileSnapshot& s);
std::string threadLabel(const ProfileThread& t); // "1234 worker" or "1234 (main)"

} // namespace gilscope::tui
