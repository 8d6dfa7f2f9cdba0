#pragma once

class QComboBox;

namespace gilscope::ui {

// Greys out the state filters a recording cannot answer (it never read that state:
// stateFilterUnavailable()), with the reason and the remedy as their tooltip, and turns a
// chosen one that became unavailable back to All. mode: the recording's ProfilingMode
// value (-1 unknown); pythonMinor: its target's 3.x (0 unknown); freeThreaded: it has no GIL.
void markRecordedStates(QComboBox* stateBox, int mode, int pythonMinor, bool freeThreaded = false);

} // namespace gilscope::ui
