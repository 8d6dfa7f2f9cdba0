#include "ui/recent_files.h"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace gilscope::ui {

namespace {
constexpr int kMaxRecentFiles = 8;
const QString kKey = QStringLiteral("recent/files");
} // namespace

RecentFiles::RecentFiles(QSettings* settings, QObject* parent)
    : QObject(parent), settings_(settings) {
    if (settings_) files_ = settings_->value(kKey).toStringList();
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    files_.removeAll(absolute);
    files_.prepend(absolute);
    while (files_.size() > kMaxRecentFiles)
        files_.removeLast();
    store();
}

void RecentFiles::clear() {
    files_.clear();
    store();
}

void RecentFiles::store() {
    if (settings_) {
        settings_->setValue(kKey, files_);
        settings_->sync();
    }
    emit changed();
}

void RecentFiles::fillMenu(QMenu* menu) {
    menu->clear();
    for (const QString& path : files_) {
        QAction* open = menu->addAction(QFileInfo(path).fileName());
        open->setToolTip(path);
        open->setData(path);
        connect(open, &QAction::triggered, this, [this, path] { emit openRequested(path); });
    }
    if (files_.isEmpty()) {
        menu->addAction(tr("No recent files"))->setEnabled(false);
    } else {
        menu->addSeparator();
        menu->addAction(tr("Clear list"), this, &RecentFiles::clear);
    }
}

} // namespace gilscope::ui
