#pragma once

#include <QDBusConnection>
#include <QString>
#include <QUrl>

#include <functional>

class QObject;

namespace gilscope::ui {

// file:///abs/path for a local file, percent-encoded, as FileManager1 wants its URIs.
QString fileUriOf(const QString& path);

// "Show in folder": asks the desktop's file manager to open the file's folder with the
// file selected (org.freedesktop.FileManager1.ShowItems: Nautilus, Dolphin, Nemo, Caja,
// Thunar ...). When no file manager answers on the bus, or there is no session bus,
// opens the folder with openFolder (QDesktopServices::openUrl) instead. The call is
// asynchronous: the GUI thread never waits for a file manager to start. done(true)
// when the file manager took it, done(false) after the fallback; called once, possibly
// before this returns.
void showInFolder(const QString& path, QObject* context,
                  const std::function<bool(const QUrl&)>& openFolder,
                  const QDBusConnection& bus = QDBusConnection::sessionBus(),
                  const std::function<void(bool viaFileManager)>& done = {});

} // namespace gilscope::ui
