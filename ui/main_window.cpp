#include "ui/main_window.h"

#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/file_flow.h"
#include "ui/process_picker.h"
#include "ui/recent_files.h"
#include "ui/record_options_bar.h"
#include "ui/recording_controller.h"
#include "ui/recording_page.h"
#include "ui/start_page.h"

#include <QCloseEvent>
#include <QFileInfo>
#include <QIcon>
#include <QLabel>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

// The icon's resources live in this static library: register them once.
static void initResources() {
    Q_INIT_RESOURCE(gilscope);
}

namespace gilscope::ui {

MainWindow::MainWindow(QSettings* settings, QWidget* parent)
    : QMainWindow(parent), settings_(settings),
      prompts_(
          dialogPrompts(this, settings, [this] { return lastFolder(QStringLiteral("open")); })),
      actions_(makeWindowActions(this)), recent_(new RecentFiles(settings, this)),
      controller_(new RecordingController(prompts_, this)),
      files_(new FileFlow(
          *controller_, recent_, prompts_,
          [this] { return recordingPage_->analysis()->controller()->state(); }, settings, this)),
      options_(new RecordOptionsBar(this)), pages_(new QStackedWidget(this)),
      startPage_(new StartPage(actions_, recent_, pages_)),
      recordingPage_(new RecordingPage(this, pages_)), status_(new QLabel(this)) {
    initResources();
    setWindowTitle(QStringLiteral("gilscope"));
    setWindowIcon(QIcon(QStringLiteral(":/gilscope/gilscope.svg")));
    setAcceptDrops(true); // .bin recordings dropped on the window open
    pages_->setObjectName(QStringLiteral("pages"));
    pages_->addWidget(startPage_);
    pages_->addWidget(recordingPage_);
    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(6, 2, 6, 0);
    column->setSpacing(2);
    status_->setObjectName(QStringLiteral("recordingStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(status_);
    column->addWidget(options_->problemLabel()); // why Record is disabled, if it is
    column->addWidget(pages_, 1);
    setCentralWidget(central);

    buildToolbars();
    buildMenus();
    connectActions();
    connectParts();
    setStatus(tr("Pick a Python process and press Record, or open a .bin recording."));
    fitToScreen();
    loadSettings();
    updateActions();
}

MainWindow::~MainWindow() {
    controller_->finishNow();
}

void MainWindow::connectParts() {
    ProcessPicker* picker = startPage_->picker();
    connect(picker, &ProcessPicker::currentProcessChanged, this, &MainWindow::onProcessChanged);
    // Double-click or Space on the selected row; never a row the user did not pick.
    connect(picker, &ProcessPicker::recordRequested, this, [this, picker](int pid) {
        if (pid == picker->selectedPid()) record();
    });
    connect(picker, &ProcessPicker::selectionLost, this, &MainWindow::onSelectionLost);
    connect(options_, &RecordOptionsBar::changed, this, &MainWindow::updateActions);
    connect(recent_, &RecentFiles::openRequested, this, &MainWindow::openRecordingFile);

    RecordingController* c = controller_;
    connect(c, &RecordingController::statusChanged, this, &MainWindow::setStatus);
    connect(c, &RecordingController::notice, this,
            [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    connect(c, &RecordingController::started, this, &MainWindow::onRecordingStarted);
    connect(c, &RecordingController::progressed, this, [this](const SamplerStats& stats) {
        recordingPage_->showProgress(stats, *controller_->session(), true);
    });
    connect(c, &RecordingController::ended, this, [this](const SamplerStats& stats) {
        recordingPage_->showProgress(stats, *controller_->session(), false);
        onRecordingEnded();
    });
    connect(c, &RecordingController::endChanged, this, &MainWindow::showEndStatus);
    connect(c, &RecordingController::attachFailed, this, &MainWindow::attachFailed);
    connect(c, &RecordingController::attachDiscarded, this, &MainWindow::attachDiscarded);
    connect(c, &RecordingController::launchFailed, this, &MainWindow::launchFailed);
    connect(c, &RecordingController::programStarting, recordingPage_, &RecordingPage::startOutput);
    connect(c, &RecordingController::programOutput, recordingPage_, &RecordingPage::appendOutput);
    connect(c, &RecordingController::programExited, this, &MainWindow::programExited);
    connect(c, &RecordingController::changed, this, &MainWindow::updateActions);

    connect(files_, &FileFlow::statusChanged, this, &MainWindow::setStatus);
    connect(files_, &FileFlow::notice, this,
            [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connect(files_, &FileFlow::exportFinished, this, &MainWindow::exportFinished);
    connect(files_, &FileFlow::binSaved, this, &MainWindow::binSaved);
    connect(files_, &FileFlow::tracksReady, this, &MainWindow::onFileTracksReady);
    connect(files_, &FileFlow::loaded, this, &MainWindow::onFileLoaded);
    connect(files_, &FileFlow::changed, this, &MainWindow::updateActions);
}

bool MainWindow::recording() const {
    return controller_->recording();
}

bool MainWindow::attaching() const {
    return controller_->attaching();
}

QString MainWindow::statusText() const {
    return status_->text();
}

void MainWindow::setStatus(const QString& text) {
    // The status bar is for passing notes; it does not repeat this label.
    status_->setText(text);
}

void MainWindow::showEndStatus(const QString& text) {
    if (!shownEnd_.isEmpty() && statusText() != shownEnd_) {
        statusBar()->showMessage(text, 15000);
        return;
    }
    setStatus(text);
    shownEnd_ = text;
}

void MainWindow::record() {
    const auto process = picker()->currentProcess();
    if (recording() || attaching() || files_->busy() || !process) return;
    if (!process->canAttach) {
        prompts_.showMessage(MessageKind::Error, tr("Cannot record"),
                             tr("gilscope cannot attach to process %1: %2")
                                 .arg(process->pid)
                                 .arg(QString::fromStdString(process->reason)));
        return;
    }
    options_->setTargetVersion(QString::fromStdString(process->version));
    auto options = options_->options();
    const QString why =
        options ? options_->versionProblem() : QString::fromStdString(options.error().message);
    if (!why.isEmpty()) {
        prompts_.showMessage(MessageKind::Error, tr("Cannot record"), why);
        return;
    }
    if (!files_->settleUnsaved([this] { record(); })) return;
    controller_->attach(process->pid, *options, QString::fromStdString(process->commandLine));
}

void MainWindow::launchScript() {
    if (recording() || attaching() || files_->busy()) return;
    const auto request = prompts_.askLaunch();
    if (request) launch(*request);
}

void MainWindow::launch(const LaunchRequest& request) {
    if (recording() || attaching() || files_->busy()) return;
    auto options = options_->options();
    if (!options) {
        prompts_.showMessage(MessageKind::Error, tr("Cannot record"),
                             QString::fromStdString(options.error().message));
        return;
    }
    if (!files_->settleUnsaved([this, request] { launch(request); })) return;
    controller_->launch(request, *options);
}

void MainWindow::stop() {
    controller_->stop();
}

void MainWindow::onProcessChanged() {
    // Picking another process while attaching means the user no longer wants that one.
    const auto process = picker()->currentProcess();
    if (attaching() && process && process->pid != controller_->attachingPid())
        controller_->cancelAttach(tr("another process was selected"));
    updateActions();
}

void MainWindow::onSelectionLost(int pid, const QString& why) {
    const QString text =
        tr("Process %1 is no longer selected: %2. Pick another process.").arg(pid).arg(why);
    if (!recording() && !attaching() && !files_->busy() && !controller_->session() &&
        !controller_->file())
        setStatus(text);
    else
        statusBar()->showMessage(text, 10000);
    updateActions();
}

void MainWindow::onRecordingStarted() {
    const RecordingSession& session = *controller_->session();
    const RecordedProcess& process = controller_->process();
    shownEnd_.clear();
    recordingPage_->showLive(session);
    const QString python = controller_->pythonLabel();
    processName_->setText(
        tr("pid %1 · %2 · Python %3")
            .arg(session.pid())
            .arg(process.scriptName.isEmpty() ? process.commandLine : process.scriptName)
            .arg(python));
    processName_->setToolTip(process.commandLine);
    showRecordingView();
    setWindowTitle(tr("gilscope — recording pid %1").arg(session.pid()));
    setStatus(tr("Recording pid %1 · Python %2 · %3")
                  .arg(session.pid())
                  .arg(python)
                  .arg(process.commandLine));
    updateActions();
    emit recordingStarted();
}

void MainWindow::onRecordingEnded() {
    setWindowTitle(tr("gilscope — pid %1 (stopped)").arg(controller_->session()->pid()));
    updateActions();
    emit recordingEnded();
}

void MainWindow::exportProfile() {
    if (actions_.exportProfile->isEnabled()) files_->exportProfile();
}

void MainWindow::saveRecordingAsBin() {
    if (actions_.saveBin->isEnabled()) files_->saveBin();
}

void MainWindow::openRecording() {
    if (recording() || attaching() || files_->busy()) return;
    const QString path = prompts_.askOpenPath();
    if (!path.isEmpty()) openRecordingFile(path);
}

void MainWindow::openRecordingFile(const QString& path) {
    if (attaching() || files_->busy()) return;
    if (!files_->settleUnsaved([this, path] { openRecordingFile(path); })) return;
    files_->open(path);
}

void MainWindow::onFileTracksReady() {
    const RecordingFile& file = *controller_->file();
    const QString path = QString::fromStdString(file.path().string());
    recordingPage_->showFile(file, true); // the views fill as the model does
    setWindowTitle(tr("gilscope — %1").arg(path));
    processName_->setText(QFileInfo(path).fileName());
    processName_->setToolTip(path);
    showRecordingView();
    updateActions();
}

void MainWindow::onFileLoaded(bool ok) {
    if (ok) {
        const RecordingFile& file = *controller_->file();
        if (recordingPage_->shownFile() != &file) onFileTracksReady();
        recordingPage_->fileLoaded(file);
    } else if (!controller_->file() && recordingPage_->shownFile()) {
        recordingPage_->forgetFile();
        showProcessPicker(); // its open was cancelled while its views filled
    }
    updateActions();
    emit recordingLoaded(ok);
}

bool MainWindow::openInProfiler(const QString& path) {
    return files_->openInProfiler(path);
}

QString MainWindow::profilerAddress() const {
    return files_->profilerAddress();
}

void MainWindow::setProfilerAddress(const QString& address) {
    files_->setProfilerAddress(address);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (files_->busy() && (files_->quitPending() || files_->unsaved() || recording())) {
        // The save or export asked for runs first (the window closes after it), or
        // one the user started: let it finish or cancel it, then quit.
        if (!files_->quitPending())
            statusBar()->showMessage(tr("Finish or cancel the running job, then quit."), 10000);
        event->ignore();
        return;
    }
    if (!files_->busy() && !files_->settleUnsaved([this] { close(); }, true)) {
        event->ignore(); // a save or export runs first, or the user cancelled
        return;
    }
    saveSettings();
    controller_->finishNow();
    files_->cancel();
    event->accept();
}

} // namespace gilscope::ui
