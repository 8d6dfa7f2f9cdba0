#include "ui/main_window.h"

#include <QLabel>

namespace gilscope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("gilscope"));
    auto* label = new QLabel(tr("gilscope: pick a Python process to profile."), this);
    label->setAlignment(Qt::AlignCenter);
    setCentralWidget(label);
    resize(1100, 700);
}

} // namespace gilscope::ui
