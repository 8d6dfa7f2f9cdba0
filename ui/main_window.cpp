#include "ui/main_window.h"

#include "core/sampler/rate_parser.h"
#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "net/profile_server.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/compare_bar.h"
#include "ui/analysis/state_filter_choices.h"
#include "ui/attach_job.h"
#include "ui/job_runner.h"
#include "ui/launch_dialog.h"
#include "ui/live_figures.h"
#include "ui/process_picker.h"
#include "ui/rate_chart.h"
#include "ui/record_options_bar.h"
#include "ui/timeline_widget.h"
#include "ui/window_dialogs.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

// The icon's resources live in this static library: register them once.
static void initResources() {
    Q_INIT_RESOURCE(gilscope);
}

namespace gilscope::ui {

MainWindow::MainWindow(QSettings* settings, QWidget* parent)
    : QMainWindow(parent), picker_(new ProcessPicker(this)), figures_(new LiveFigures(this)),
      timeline_(new TimelineWidget(this)), status_(new QLabel(this)), fileInfo_(new QLabel(this)),
      liveTimer_(new QTimer(this)), job_(new JobRunner(this, this)), attach_(new AttachJob(this)),
      options_(new RecordOptionsBar(this)), rateChart_(new RateChart(this)), settings_(settings),
      profileServer_(new net::ProfileServer(this)),
      profilerAddress_(net::ProfileServer::kDefaultProfiler) {
    initResources();
    launch_ = new LaunchJob(this);
    output_ = new QPlainTextEdit(this);
    exitWatch_ = new QTimer(this);
    setWindowTitle(QStringLiteral("gilscope"));
    setWindowIcon(QIcon(QStringLiteral(":/gilscope/gilscope.svg")));
    setAcceptDrops(true); // .bin recordings dropped on the window open
    askSavePath = [this](const QString& title, const QString& suggestedName,
                         const QString& filter) {
        return QFileDialog::getSaveFileName(this, title, suggestedName, filter);
    };
    askOpenPath = [this] {
        return QFileDialog::getOpenFileName(
            this, tr("Open recording"), lastFolder(QStringLiteral("open")),
            tr("CPython sampling recordings (*.bin);;All files (*)"));
    };
    showMessage = [this](MessageKind kind, const QString& title, const QString& text) {
        showMessageBox(this, kind == MessageKind::Error, title, text);
    };
    askAfterExport = [this](const QString& path) { return askExportChoiceBox(this, path); };
    openUrl = [](const QUrl& url) { return QDesktopServices::openUrl(url); };
    askMarkText = [this] {
        return QInputDialog::getText(this, tr("Add marker"), tr("What happens now:")).simplified();
    };
    askLaunch = [this]() -> std::optional<LaunchRequest> {
        LaunchDialog dialog(this);
        if (settings_) dialog.load(*settings_);
        if (dialog.exec() != QDialog::Accepted) return std::nullopt;
        if (settings_) dialog.save(*settings_);
        return dialog.request();
    };
    askUnsaved = [this](const QString& text, bool canSaveBin) {
        return static_cast<UnsavedChoice>(askUnsavedChoice(this, text, canSaveBin));
    };

    buildActions();
    analysis_ = new AnalysisPanel(this); // fed by the recording's (or file's) ProfileModel
    analysis_->attachTimeline(timeline_);
    compare_->attach(analysis_);
    pages_ = new QStackedWidget(this);
    pages_->setObjectName(QStringLiteral("pages"));
    pages_->addWidget(buildStartPage());
    pages_->addWidget(buildRecordingPage());
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

    connect(picker_, &ProcessPicker::currentProcessChanged, this, &MainWindow::onProcessChanged);
    // Double-click or Space on the selected row; never a row the user did not pick.
    connect(picker_, &ProcessPicker::recordRequested, this, [this](int pid) {
        if (pid == picker_->selectedPid()) record();
    });
    connect(picker_, &ProcessPicker::selectionLost, this, &MainWindow::onSelectionLost);
    connect(attach_, &AttachJob::attached, this, &MainWindow::onAttached);
    connect(attach_, &AttachJob::failed, this, &MainWindow::onAttachFailed);
    connect(attach_, &AttachJob::discarded, this, &MainWindow::attachDiscarded);
    connect(launch_, &LaunchJob::launched, this, &MainWindow::onLaunched);
    connect(launch_, &LaunchJob::failed, this, &MainWindow::onLaunchFailed);
    connect(launch_, &LaunchJob::output, this, &MainWindow::appendOutput);
    connect(launch_, &LaunchJob::notice, this,
            [this](const QString& text) { statusBar()->showMessage(text, 15000); });
    exitWatch_->setInterval(100); // reaps the launched program once it has ended
    connect(exitWatch_, &QTimer::timeout, this, &MainWindow::checkProgramExit);
    // A state the recording never read is greyed out in the filter, with the reason.
    connect(this, &MainWindow::recordingStarted, this, [this] {
        analysis_->showRecording(session_->profile(), session_->pid(), true);
        markRecordedStates(analysis_->stateBox(), int(session_->mode()), session_->pythonMinor(),
                           session_->freeThreaded());
    });
    connect(this, &MainWindow::recordingEnded, this, [this] { analysis_->setLive(false); });
    connect(this, &MainWindow::recordingLoaded, this, [this](bool ok) {
        if (!ok || !file_) return;
        analysis_->showRecording(file_->profile(), 0, false);
        const TachInfo& info = file_->info();
        markRecordedStates(analysis_->stateBox(), info.mode.value_or(-1),
                           info.pythonMajor == 3 ? info.pythonMinor : 0, info.freeThreaded);
    });
    liveTimer_->setInterval(200); // 5 Hz: figures and timelines, never per sample
    connect(liveTimer_, &QTimer::timeout, this, &MainWindow::tick);
    setStatus(tr("Pick a Python process and press Record, or open a .bin recording."));
    fitToScreen();
    loadSettings();
    updateActions();
}

MainWindow::~MainWindow() {
    if (session_) session_->finish();
}

bool MainWindow::recording() const {
    return session_ && !session_->finished();
}

bool MainWindow::attaching() const {
    return attach_->busy() || launch_->busy();
}

QString MainWindow::statusText() const {
    return status_->text();
}

void MainWindow::setStatus(const QString& text) {
    // The status bar is for passing notes; it does not repeat this label.
    status_->setText(text);
}

void MainWindow::record() {
    const auto process = picker_->currentProcess();
    if (recording() || attaching() || job_->running() || !process) return;
    if (!process->canAttach) {
        showMessage(MessageKind::Error, tr("Cannot record"),
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
        showMessage(MessageKind::Error, tr("Cannot record"), why);
        return;
    }
    if (!settleUnsaved(After::Record)) return;
    attachCommandLine_ = QString::fromStdString(process->commandLine);
    attach_->start(process->pid, *options);
    setStatus(tr("Attaching to PID %1…").arg(process->pid));
    updateActions();
}

void MainWindow::onProcessChanged() {
    // Picking another process while attaching means the user no longer wants that one.
    const auto process = picker_->currentProcess();
    if (attaching() && process && process->pid != attach_->pid())
        cancelAttach(tr("another process was selected"));
    updateActions();
}

void MainWindow::onSelectionLost(int pid, const QString& why) {
    const QString text =
        tr("Process %1 is no longer selected: %2. Pick another process.").arg(pid).arg(why);
    if (!recording() && !attaching() && !job_->running() && !session_ && !file_)
        setStatus(text);
    else
        statusBar()->showMessage(text, 10000);
    updateActions();
}

void MainWindow::cancelAttach(const QString& why) {
    const int pid = attach_->pid();
    attach_->cancel();
    setStatus(why.isEmpty() ? tr("Attaching to pid %1 was cancelled.").arg(pid)
                            : tr("Attaching to pid %1 was cancelled: %2.").arg(pid).arg(why));
    updateActions();
}

void MainWindow::onAttachFailed(int pid, ErrorKind kind, const QString& message) {
    const QString text = adviceForWindow(kind, message);
    setStatus(tr("Cannot record pid %1: %2")
                  .arg(pid)
                  .arg(QString(text).replace(QStringLiteral("\n\n"), QStringLiteral(" "))));
    showMessage(MessageKind::Error, tr("Cannot record process %1").arg(pid), text);
    updateActions();
    emit attachFailed(message);
}

void MainWindow::onAttached(std::shared_ptr<RecordingSession> session) {
    session_ = std::move(session);
    session_->startSampling();
    endStatus_.clear();
    programExit_.clear();
    shownEnd_.clear();
    recordedName_ = scriptNameOf(attachCommandLine_);
    recordStarted_ = QDateTime::currentDateTime();
    file_.reset();
    fileInfo_->hide();
    figures_->show();
    figures_->clear();
    rateChart_->clear();
    rateChart_->show();
    timeline_->clear();
    // A free-threaded build says so where the version shows: it has no GIL lanes.
    const QString python = QString::fromStdString(session_->pythonVersion()) +
                           (session_->freeThreaded() ? tr(" free-threaded (no GIL)") : QString());
    processName_->setText(tr("pid %1 · %2 · Python %3")
                              .arg(session_->pid())
                              .arg(recordedName_.isEmpty() ? attachCommandLine_ : recordedName_)
                              .arg(python));
    processName_->setToolTip(attachCommandLine_);
    showRecordingView();
    setWindowTitle(tr("gilscope — recording pid %1").arg(session_->pid()));
    setStatus(tr("Recording pid %1 · Python %2 · %3")
                  .arg(session_->pid())
                  .arg(python)
                  .arg(attachCommandLine_));
    liveTimer_->start();
    updateActions();
    emit recordingStarted();
}

void MainWindow::stop() {
    if (launch_->busy()) {
        launch_->cancel(); // the program goes; launchFailed says so
        return;
    }
    if (attaching()) {
        cancelAttach({});
        return;
    }
    if (!recording()) return;
    session_->finish();
    // A launched program is recorded for as long as it runs, as `gilscope run` does:
    // stopping ends it too, and its exit shows.
    if (programRunning_) launch_->terminate();
    onRecordingEnded();
}

void MainWindow::tick() {
    if (!session_) return;
    const SamplerStats stats = session_->stats();
    figures_->setStats(stats);
    rateChart_->addStats(stats);
    timeline_->setSnapshot(session_->timeline());
    alignRateStrip();
    if (!session_->finished() && !session_->running()) {
        session_->finish(); // the target exited, or a sink failed
        onRecordingEnded();
    }
}

void MainWindow::onRecordingEnded() {
    liveTimer_->stop();
    const SamplerStats stats = session_->stats();
    figures_->setStats(stats);
    timeline_->setSnapshot(session_->timeline());
    const QString how = session_->hasBinCopy()
                            ? tr("export them with “Export to Firefox Profiler…” or keep them "
                                 "with “Save recording as .bin…”")
                            : tr("export them with “Export to Firefox Profiler…”");
    const QString kept = tr("%1 samples over %2 s are kept; %3.")
                             .arg(QLocale().toString(qulonglong(stats.okTicks)))
                             .arg(stats.elapsedSec, 0, 'f', 1)
                             .arg(how);
    const StopReason reason = session_->finish();
    const RecordingEnd end = session_->end();
    endTargetExited_ = end.failure.empty() && reason == StopReason::TargetExited;
    endPid_ = session_->pid(); // the session may be gone when the program's exit is seen
    endKept_ = kept;
    const std::string why = end.describe();
    endStatus_ = why.empty() ? tr("Recording of pid %1 stopped. %2").arg(session_->pid()).arg(kept)
                             : tr("Recording of pid %1 stopped: %2. %3")
                                   .arg(session_->pid())
                                   .arg(QString::fromStdString(why), kept);
    showEndStatus();
    setWindowTitle(tr("gilscope — pid %1 (stopped)").arg(session_->pid()));
    unsaved_ = stats.threadSamples > 0;
    updateActions();
    emit recordingEnded();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (job_->running() && (after_ == After::Quit || unsaved_ || recording())) {
        // The save or export asked for runs first (the window closes after it), or
        // one the user started: let it finish or cancel it, then quit.
        if (after_ != After::Quit)
            statusBar()->showMessage(tr("Finish or cancel the running job, then quit."), 10000);
        event->ignore();
        return;
    }
    if (!job_->running() && !settleUnsaved(After::Quit)) {
        event->ignore(); // a save or export runs first, or the user cancelled
        return;
    }
    saveSettings();
    attach_->cancel();
    if (session_) session_->finish();
    job_->cancel();
    event->accept();
}

} // namespace gilscope::ui
