#pragma once

#include <QWidget>

class QListWidget;
class QToolButton;

namespace gilscope::ui {

class ProcessPicker;
class RecentFiles;
struct WindowActions;

// The window's first page: the Python processes on the machine (with whether gilscope
// may attach), the buttons to record, launch or open, and the recent files.
class StartPage : public QWidget {
    Q_OBJECT
public:
    StartPage(const WindowActions& actions, RecentFiles* recent, QWidget* parent);

    ProcessPicker* picker() const { return picker_; }
    // "Recording ▶": shown once there is a recording or an opened file to go back to.
    void setBackVisible(bool visible);

private:
    void showRecentFiles();

    ProcessPicker* picker_;
    RecentFiles* recent_;
    QListWidget* recentList_;
    QToolButton* back_;
};

} // namespace gilscope::ui
