#pragma once

class QAction;
class QObject;

namespace gilscope::ui {

// The window's actions: one set, shared by the toolbar, the menus and the start page's
// buttons. The window connects them and enables them from the recording's state.
struct WindowActions {
    QAction* record = nullptr;
    QAction* stop = nullptr; // also cancels an attach or a launch
    QAction* launch = nullptr;
    QAction* open = nullptr;
    QAction* exportProfile = nullptr;
    QAction* saveBin = nullptr;
    QAction* snapshot = nullptr;
    QAction* mark = nullptr;
    QAction* page = nullptr; // to the other page: the process list or the recording
    QAction* resetLayout = nullptr;
    QAction* about = nullptr;
};

// Makes the actions with their names, shortcuts and tooltips, owned by `owner`.
WindowActions makeWindowActions(QObject* owner);

} // namespace gilscope::ui
