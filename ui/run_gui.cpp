#include "ui/run_gui.h"

#include "ui/main_window.h"

#include <QApplication>

namespace gilscope::ui {

int runGui(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("gilscope"));
    QApplication::setOrganizationName(QStringLiteral("gilscope"));
    MainWindow window;
    window.show();
    return QApplication::exec();
}

} // namespace gilscope::ui
