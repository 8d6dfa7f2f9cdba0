// What the window remembers between runs (QSettings), its first size, recent files,
// and the About box.
#include "ui/main_window.h"

#include "ui/process_picker.h"
#include "ui/record_options_bar.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QToolButton>

namespace gilscope::ui {

namespace {
constexpr int kMaxRecentFiles = 8;
const QStringList kFolderKinds = {QStringLiteral("export"), QStringLiteral("save"),
                                  QStringLiteral("open")};
} // namespace

void MainWindow::fitToScreen() {
    QSize size(1300, 850);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = defaultSize(screen->availableGeometry().size());
    resize(size);
}

void MainWindow::loadSettings() {
    if (!settings_) return;
    QSettings& s = *settings_;
    if (s.contains(QStringLiteral("window/geometry")))
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    // A track area the user sized stays so; otherwise it fits its tracks.
    if (s.contains(QStringLiteral("window/splitter")))
        tracksSized_ =
            splitter_->restoreState(s.value(QStringLiteral("window/splitter")).toByteArray());
    setRateExpanded(s.value(QStringLiteral("window/rateExpanded"), false).toBool());
    options_->load(s);
    for (const QString& kind : kFolderKinds) {
        const QString folder = s.value(QStringLiteral("folders/") + kind).toString();
        if (!folder.isEmpty()) folders_[kind] = folder;
    }
    picker_->filter()->setText(s.value(QStringLiteral("picker/filter")).toString());
    recentFiles_ = s.value(QStringLiteral("recent/files")).toStringList();
    const QString profiler = s.value(QStringLiteral("export/profilerAddress")).toString();
    if (!profiler.isEmpty()) profilerAddress_ = profiler;
    rebuildRecentMenu();
}

void MainWindow::saveSettings() const {
    if (!settings_) return;
    QSettings& s = *settings_;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    if (tracksSized_)
        s.setValue(QStringLiteral("window/splitter"), splitter_->saveState());
    else
        s.remove(QStringLiteral("window/splitter"));
    s.setValue(QStringLiteral("window/rateExpanded"), rateToggle_->isChecked());
    options_->save(s);
    for (auto it = folders_.begin(); it != folders_.end(); ++it)
        s.setValue(QStringLiteral("folders/") + it.key(), it.value());
    s.setValue(QStringLiteral("picker/filter"), picker_->filter()->text());
    s.setValue(QStringLiteral("recent/files"), recentFiles_);
    s.setValue(QStringLiteral("export/profilerAddress"), profilerAddress_);
    s.sync();
}

QString MainWindow::lastFolder(const QString& kind) const {
    // A folder used for anything is a better start than the home folder.
    for (const QString& k : QStringList{kind} + kFolderKinds)
        if (folders_.contains(k) && QFileInfo(folders_[k]).isDir()) return folders_[k];
    return QDir::homePath();
}

void MainWindow::rememberFolder(const QString& kind, const QString& path) {
    folders_[kind] = QFileInfo(path).absolutePath();
}

void MainWindow::addRecentFile(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recentFiles_.removeAll(absolute);
    recentFiles_.prepend(absolute);
    while (recentFiles_.size() > kMaxRecentFiles)
        recentFiles_.removeLast();
    rebuildRecentMenu();
    if (settings_) {
        settings_->setValue(QStringLiteral("recent/files"), recentFiles_);
        settings_->sync();
    }
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    if (recentList_) {
        recentList_->clear();
        for (const QString& path : recentFiles_) {
            auto* item = new QListWidgetItem(QFileInfo(path).fileName(), recentList_);
            item->setToolTip(path);
            item->setData(Qt::UserRole, path);
        }
        if (recentFiles_.isEmpty())
            (new QListWidgetItem(tr("None yet: recordings you open appear here"), recentList_))
                ->setFlags(Qt::NoItemFlags);
    }
    for (const QString& path : recentFiles_) {
        QAction* open = recentMenu_->addAction(QFileInfo(path).fileName());
        open->setToolTip(path);
        open->setData(path);
        connect(open, &QAction::triggered, this, [this, path] { openRecordingFile(path); });
    }
    if (recentFiles_.isEmpty()) {
        recentMenu_->addAction(tr("No recent files"))->setEnabled(false);
    } else {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear list"), this, [this] {
            recentFiles_.clear();
            rebuildRecentMenu();
        });
    }
}

void MainWindow::showAbout() {
    QMessageBox box(this);
    box.setWindowTitle(tr("About gilscope"));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.setTextFormat(Qt::RichText);
    box.setText(aboutText());
    box.exec();
}

QString MainWindow::aboutText() {
    return tr("<h3>gilscope %1</h3>"
              "<p>A sampling profiler for running Python programs: where the time goes and "
              "who holds the GIL.</p>"
              "<p>Targets: CPython 3.8 to 3.15 on x86_64 Linux.<br>"
              "Files: CPython 3.15's <tt>.bin</tt> recordings and the Firefox Profiler's "
              "format.</p>"
              "<p>Qt %2 (built with %3)<br>Licence: %4</p>")
        .arg(QStringLiteral(GILSCOPE_VERSION), QString::fromLatin1(qVersion()),
             QStringLiteral(QT_VERSION_STR), QStringLiteral(GILSCOPE_LICENCE));
}

} // namespace gilscope::ui
