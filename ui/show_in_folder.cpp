#include "ui/show_in_folder.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QFileInfo>

namespace gilscope::ui {

namespace {
// Starting a file manager by D-Bus activation can take a few seconds on a cold desktop.
constexpr int kCallTimeoutMs = 10000;
} // namespace

QString fileUriOf(const QString& path) {
    return QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded);
}

void showInFolder(const QString& path, QObject* context,
                  const std::function<bool(const QUrl&)>& openFolder, const QDBusConnection& bus,
                  const std::function<void(bool)>& done) {
    auto fallback = [path, openFolder, done] {
        openFolder(QUrl::fromLocalFile(QFileInfo(path).absolutePath()));
        if (done) done(false);
    };
    if (!bus.isConnected()) {
        fallback();
        return;
    }
    QDBusMessage call = QDBusMessage::createMethodCall(
        QStringLiteral("org.freedesktop.FileManager1"),
        QStringLiteral("/org/freedesktop/FileManager1"),
        QStringLiteral("org.freedesktop.FileManager1"), QStringLiteral("ShowItems"));
    call << QStringList{fileUriOf(path)} << QString();
    auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(call, kCallTimeoutMs), context);
    QObject::connect(watcher, &QDBusPendingCallWatcher::finished, context,
                     [watcher, fallback, done] {
                         watcher->deleteLater();
                         if (watcher->isError()) {
                             fallback(); // no file manager on this bus, or it failed
                             return;
                         }
                         if (done) done(true);
                     });
}

} // namespace gilscope::ui
