#pragma once

#include "ui/launch_job.h"
#include "ui/window_choices.h"

#include <QString>
#include <QUrl>

#include <functional>
#include <optional>

class QSettings;
class QWidget;

namespace gilscope::ui {

// Every question the window asks and every message box it shows. The window's parts
// call these, never a dialog directly, so tests replace them and drive the window
// without modal dialogs.
struct WindowPrompts {
    std::function<QString(const QString& title, const QString& suggestedName,
                          const QString& filter)>
        askSavePath;
    std::function<QString()> askOpenPath;
    std::function<void(MessageKind, const QString& title, const QString& text)> showMessage;
    std::function<UnsavedChoice(const QString& text, bool canSaveBin)> askUnsaved;
    std::function<ExportChoice(const QString& path)> askAfterExport;
    std::function<bool(const QUrl&)> openUrl; // the default browser or file manager
    // The Launch script dialog; nullopt when cancelled.
    std::function<std::optional<LaunchRequest>()> askLaunch;
    // Recording › Add marker…: the marker's text (empty: cancelled).
    std::function<QString()> askMarkText;
};

// The real dialogs, parented to `parent`. openFolder: where Open recording… starts;
// settings: where the launch dialog remembers its fields (none when null).
WindowPrompts dialogPrompts(QWidget* parent, QSettings* settings,
                            std::function<QString()> openFolder);

// The after-export question as a message box (askAfterExport's default).
ExportChoice askExportChoiceBox(QWidget* parent, const QString& path);

} // namespace gilscope::ui
