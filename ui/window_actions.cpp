#include "ui/window_actions.h"

#include <QAction>
#include <QKeySequence>

namespace gilscope::ui {

namespace {

QAction* action(QObject* owner, const QString& text, const char* name,
                const QKeySequence& shortcut = {}) {
    auto* a = new QAction(text, owner);
    a->setObjectName(QLatin1String(name));
    a->setShortcut(shortcut);
    return a;
}

} // namespace

WindowActions makeWindowActions(QObject* owner) {
    WindowActions a;
    a.record = action(owner, QObject::tr("Record"), "recordAction", Qt::CTRL | Qt::Key_R);
    a.record->setToolTip(QObject::tr("Sample the selected process at 1 kHz, all threads"));
    a.stop = action(owner, QObject::tr("Stop"), "stopAction", Qt::CTRL | Qt::Key_Period);
    a.open = action(owner, QObject::tr("Open recording…"), "openAction", QKeySequence::Open);
    a.exportProfile = action(owner, QObject::tr("Export to Firefox Profiler…"), "exportAction",
                             QKeySequence::Save);
    // QKeySequence::SaveAs is empty on some platforms (then the shortcut did nothing).
    a.saveBin = action(owner, QObject::tr("Save recording as .bin…"), "saveBinAction",
                       Qt::CTRL | Qt::SHIFT | Qt::Key_S);
    a.about = action(owner, QObject::tr("About gilscope"), "aboutAction");
    a.launch = action(owner, QObject::tr("Launch script…"), "launchAction", Qt::CTRL | Qt::Key_L);
    a.launch->setToolTip(QObject::tr("Start a Python program and record it from its first line"));
    // The menu says what it does; the toolbar names it as profilers do (iconText).
    a.snapshot =
        action(owner, QObject::tr("Dump all threads…"), "snapshotAction", Qt::CTRL | Qt::Key_D);
    a.snapshot->setIconText(QObject::tr("Snapshot"));
    a.mark = action(owner, QObject::tr("Add marker…"), "markAction", Qt::CTRL | Qt::Key_M);
    a.mark->setToolTip(QObject::tr("A named instant now, drawn across every track and kept "
                                   "in the Firefox Profiler export"));
    a.page = action(owner, QObject::tr("◀ Processes"), "pageAction");
    a.resetLayout = action(owner, QObject::tr("Reset layout"), "resetLayoutAction");
    a.resetLayout->setToolTip(
        QObject::tr("The window's first size; the track area fits its tracks"));
    return a;
}

} // namespace gilscope::ui
