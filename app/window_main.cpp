// gilscope-window: the window, in a binary of its own. `gilscope` with no command (or with
// a recording's name) executes it; commands never load Qt's GUI libraries, whose dynamic
// linking was two thirds of a command's start (45 ms of CPU for `gilscope --version`).
#include "ui/run_gui.h"

int main(int argc, char** argv) {
    return gilscope::ui::runGui(argc, argv);
}
