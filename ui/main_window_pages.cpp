// Which page shows, the window's size and layout, what it remembers between runs
// (QSettings), drag and drop, and the About box.
#include "ui/main_window.h"

#include "ui/analysis/analysis_panel.h"
#include "ui/file_flow.h"
#include "ui/process_picker.h"
#include "ui/recent_files.h"
#include "ui/record_options_bar.h"
#include "ui/recording_controller.h"
#include "ui/recording_page.h"
#include "ui/start_page.h"

#include <QAction>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolBar>

#include <algorithm>

namespace gilscope::ui {

QSize MainWindow::defaultSize(QSize available) {
    // 90 % of what is free: on a laptop (1366x768) the window nearly fills it; at
    // QT_SCALE_FACTOR=2 a 1600x1000 screen has 800x500 device-independent pixels.
    return QSize(std::min(1600, available.width() * 9 / 10),
                 std::min(1000, available.height() * 9 / 10));
}

bool MainWindow::showingRecording() const {
    return pages_->currentWidget() == recordingPage_;
}

void MainWindow::showProcessPicker() {
    pages_->setCurrentWidget(startPage_);
    updatePage();
    picker()->filter()->setFocus();
}

void MainWindow::showRecordingView() {
    pages_->setCurrentWidget(recordingPage_);
    updatePage();
}

// What only one page needs: the options bar serves the start page, the process name
// the recording; the page button goes to the other one.
void MainWindow::updatePage() {
    const bool recordingPage = showingRecording();
    optionsBar_->setVisible(!recordingPage);
    processName_->setVisible(recordingPage);
    actions_.page->setText(recordingPage ? tr("◀ Processes") : tr("Recording ▶"));
    actions_.page->setToolTip(recordingPage ? tr("Back to the process list (a recording goes on)")
                                            : tr("Back to the recording or opened file"));
    const bool somewhereToGo = recordingPage || controller_->session() || controller_->file();
    actions_.page->setEnabled(somewhereToGo);
    actions_.page->setVisible(somewhereToGo);
    startPage_->setBackVisible(somewhereToGo);
}

void MainWindow::resetLayout() {
    if (settings_) {
        settings_->remove(QStringLiteral("window/geometry"));
        RecordingPage::forgetSettings(*settings_);
    }
    showNormal();
    fitToScreen();
    recordingPage_->resetLayout();
}

void MainWindow::fitToScreen() {
    QSize size(1300, 850);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = defaultSize(screen->availableGeometry().size());
    resize(size);
}

void MainWindow::loadSettings() {
    if (!settings_) return;
    const QSettings& s = *settings_;
    if (s.contains(QStringLiteral("window/geometry")))
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    recordingPage_->loadSettings(s);
    options_->load(*settings_);
    files_->loadSettings(s);
    picker()->filter()->setText(s.value(QStringLiteral("picker/filter")).toString());
}

void MainWindow::saveSettings() const {
    if (!settings_) return;
    QSettings& s = *settings_;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    recordingPage_->saveSettings(s);
    options_->save(s);
    files_->saveSettings(s);
    s.setValue(QStringLiteral("picker/filter"), picker()->filter()->text());
    s.sync();
}

QString MainWindow::lastFolder(const QString& kind) const {
    return files_->lastFolder(kind);
}

QStringList MainWindow::recentFiles() const {
    return recent_->files();
}

bool MainWindow::hasUnsavedRecording() const {
    return files_->unsaved();
}

ProcessPicker* MainWindow::picker() const {
    return startPage_->picker();
}

LiveFigures* MainWindow::figures() const {
    return recordingPage_->figures();
}

TimelineWidget* MainWindow::timeline() const {
    return recordingPage_->timeline();
}

RateChart* MainWindow::rateChart() const {
    return recordingPage_->rateChart();
}

net::ProfileServer* MainWindow::profileServer() const {
    return files_->profileServer();
}

AnalysisPanel* MainWindow::analysis() const {
    return recordingPage_->analysis();
}

CompareBar* MainWindow::compare() const {
    return recordingPage_->compare();
}

QPlainTextEdit* MainWindow::outputPane() const {
    return recordingPage_->output();
}

QSplitter* MainWindow::splitter() const {
    return recordingPage_->splitter();
}

QScrollArea* MainWindow::tracksArea() const {
    return recordingPage_->tracksArea();
}

QToolButton* MainWindow::rateToggle() const {
    return recordingPage_->rateToggle();
}

namespace {

QString droppedRecording(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile()) return url.toLocalFile();
    return {};
}

} // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedRecording(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedRecording(event->mimeData());
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    if (recording() || attaching() || files_->busy()) {
        statusBar()->showMessage(tr("Stop the recording before opening %1.").arg(path), 10000);
        return;
    }
    openRecordingFile(path);
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
