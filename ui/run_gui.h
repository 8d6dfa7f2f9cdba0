#pragma once

#include <QStringList>

namespace gilscope::ui {

class MainWindow;

// Creates the QApplication and the main window, and runs the event loop. A file named
// on the command line (`gilscope FILE.bin`) opens in the window.
int runGui(int argc, char** argv);

// What runGui does with the command line's arguments (program name first): opens the
// first one that is not an option.
void openCommandLineFiles(MainWindow& window, const QStringList& arguments);

} // namespace gilscope::ui
