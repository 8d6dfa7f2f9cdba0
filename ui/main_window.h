#pragma once

#include <QMainWindow>

namespace gilscope::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace gilscope::ui
