#pragma once

#include "core/common/error.h"
#include "ui/window_choices.h"

#include <QString>

class QWidget;

namespace gilscope::ui {

// A message box whose title is never cut off (it is made wide enough for it).
void showMessageBox(QWidget* parent, bool error, const QString& title, const QString& text);

// "Save as .bin… / Export… / Discard / Cancel" for a recording that would be lost.
UnsavedChoice askUnsavedChoice(QWidget* parent, const QString& text, bool canSaveBin);

// Core's error messages end with advice for the command line ("pick a Python pid from
// 'gilscope ps'"); in the window the same advice reads "pick another process".
QString adviceForWindow(ErrorKind kind, const QString& message);

// The script or module a Python command line runs, for file names: "python3 -u app.py x"
// -> "app", "python -m http.server" -> "http.server", else the program's name.
QString scriptNameOf(const QString& commandLine);

} // namespace gilscope::ui
