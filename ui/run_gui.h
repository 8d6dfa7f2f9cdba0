#pragma once

namespace gilscope::ui {

// Creates the QApplication and the main window, and runs the event loop.
int runGui(int argc, char** argv);

} // namespace gilscope::ui
