#include "ui/main_window.h"

#include "core/live/recording_file.h"
#include "core/live/recording_session.h"
#include "core/sampling/rate_parser.h"
#include "core/util/temp_dir.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/attach_job.h"
#include "ui/live_figures.h"
#include "ui/process_picker.h"
#include "ui/progress_job.h"
#include "ui/timeline_widget.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace gilscope::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), picker_(new ProcessPicker(this)), figures_(new LiveFigures(this)),
      timeline_(new TimelineWidget(this)), status_(new QLabel(this)), fileInfo_(new QLabel(this)),
      liveTimer_(new QTimer(this)), job_(new ProgressJob(this)), attach_(new AttachJob(this)) {
    setWindowTitle(QStringLiteral("gilscope"));
    // Private .bin copies of recordings left behind by a gilscope that was killed.
    cleanStaleTempDirs("gilscope-live");
    askSavePath = [this](const QString& title, const QString& suggestedName,
                         const QString& filter) {
        return QFileDialog::getSaveFileName(this, title, suggestedName, filter);
    };
    askOpenPath = [this] {
        return QFileDialog::getOpenFileName(
            this, tr("Open recording"), {},
            tr("CPython sampling recordings (*.bin);;All files (*)"));
    };
    showMessage = [this](MessageKind kind, const QString& title, const QString& text) {
        if (kind == MessageKind::Error)
            QMessageBox::warning(this, title, text);
        else
            QMessageBox::information(this, title, text);
    };

    buildActions();
    auto* processes = new QGroupBox(tr("Python processes"), this);
    auto* processLayout = new QVBoxLayout(processes);
    processLayout->addWidget(picker_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(processes);
    splitter->addWidget(buildRecordingPanel());
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 5);
    setCentralWidget(splitter);

    connect(picker_, &ProcessPicker::currentProcessChanged, this, &MainWindow::onProcessChanged);
    connect(picker_->view(), &QAbstractItemView::doubleClicked, this, &MainWindow::record);
    connect(job_, &ProgressJob::finished, this, &MainWindow::onJobFinished);
    connect(attach_, &AttachJob::attached, this, &MainWindow::onAttached);
    connect(attach_, &AttachJob::failed, this, &MainWindow::onAttachFailed);
    connect(attach_, &AttachJob::discarded, this, &MainWindow::attachDiscarded);
    // Analysis views: fed by the recording's (or opened file's) ProfileModel.
    analysis_ = new AnalysisPanel(this);
    analysis_->attachTimeline(timeline_);
    auto* analysisDock = new QDockWidget(tr("Where the time goes"), this);
    analysisDock->setObjectName(QStringLiteral("analysisDock"));
    analysisDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    analysisDock->setWidget(analysis_);
    addDockWidget(Qt::BottomDockWidgetArea, analysisDock);
    connect(this, &MainWindow::recordingStarted, this,
            [this] { analysis_->showRecording(session_->profile(), session_->pid(), true); });
    connect(this, &MainWindow::recordingEnded, this, [this] { analysis_->setLive(false); });
    connect(this, &MainWindow::recordingLoaded, this, [this](bool ok) {
        if (ok && file_) analysis_->showRecording(file_->profile(), 0, false);
    });
    liveTimer_->setInterval(200); // 5 Hz: figures and timelines, never per sample
    connect(liveTimer_, &QTimer::timeout, this, &MainWindow::tick);
    setStatus(tr("Pick a Python process and press Record, or open a .bin recording."));
    updateActions();
    resize(1300, 850);
}

MainWindow::~MainWindow() {
    if (session_) session_->finish();
}

void MainWindow::buildActions() {
    recordAction_ = new QAction(tr("Record"), this);
    recordAction_->setObjectName(QStringLiteral("recordAction"));
    recordAction_->setShortcut(Qt::CTRL | Qt::Key_R);
    recordAction_->setToolTip(tr("Sample the selected process at 1 kHz, all threads"));
    stopAction_ = new QAction(tr("Stop"), this);
    stopAction_->setObjectName(QStringLiteral("stopAction"));
    stopAction_->setShortcut(Qt::CTRL | Qt::Key_Period);
    openAction_ = new QAction(tr("Open recording…"), this);
    openAction_->setObjectName(QStringLiteral("openAction"));
    openAction_->setShortcut(QKeySequence::Open);
    exportAction_ = new QAction(tr("Export to Firefox Profiler…"), this);
    exportAction_->setObjectName(QStringLiteral("exportAction"));
    exportAction_->setShortcut(QKeySequence::Save);
    saveBinAction_ = new QAction(tr("Save recording as .bin…"), this);
    saveBinAction_->setObjectName(QStringLiteral("saveBinAction"));
    saveBinAction_->setShortcut(QKeySequence::SaveAs);
    connect(recordAction_, &QAction::triggered, this, &MainWindow::record);
    connect(stopAction_, &QAction::triggered, this, &MainWindow::stop);
    connect(openAction_, &QAction::triggered, this, &MainWindow::openRecording);
    connect(exportAction_, &QAction::triggered, this, &MainWindow::exportProfile);
    connect(saveBinAction_, &QAction::triggered, this, &MainWindow::saveRecordingAsBin);

    auto* toolbar = addToolBar(tr("Recording"));
    toolbar->setObjectName(QStringLiteral("recordingToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(recordAction_);
    toolbar->addAction(stopAction_);
    toolbar->addWidget(new QLabel(tr(" Rate "), toolbar));
    rateBox_ = new QComboBox(toolbar);
    rateBox_->setObjectName(QStringLiteral("rateBox"));
    rateBox_->setEditable(true); // any rate CPython's -r accepts, e.g. 2.5khz
    rateBox_->addItems({QStringLiteral("100hz"), QStringLiteral("1khz"), QStringLiteral("5khz"),
                        QStringLiteral("10khz"), QStringLiteral("20khz"), QStringLiteral("50khz")});
    rateBox_->setCurrentText(QStringLiteral("1khz")); // CPython's default
    rateBox_->setToolTip(tr("Sampling rate, as python -m profiling.sampling -r takes it"));
    toolbar->addWidget(rateBox_);
    toolbar->addSeparator();
    toolbar->addAction(openAction_);
    toolbar->addAction(exportAction_);
    toolbar->addAction(saveBinAction_);

    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(openAction_);
    file->addAction(exportAction_);
    file->addAction(saveBinAction_);
    file->addSeparator();
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &QWidget::close);
    auto* rec = menuBar()->addMenu(tr("&Recording"));
    rec->addAction(recordAction_);
    rec->addAction(stopAction_);
}

QWidget* MainWindow::buildRecordingPanel() {
    auto* panel = new QGroupBox(tr("Recording"), this);
    auto* layout = new QVBoxLayout(panel);
    status_->setObjectName(QStringLiteral("recordingStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fileInfo_->setObjectName(QStringLiteral("fileInfo"));
    fileInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fileInfo_->hide();
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(timeline_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::StyledPanel);
    layout->addWidget(status_);
    layout->addWidget(figures_);
    layout->addWidget(fileInfo_);
    layout->addWidget(scroll, 1);
    return panel;
}

bool MainWindow::recording() const {
    return session_ && !session_->finished();
}

bool MainWindow::attaching() const {
    return attach_->busy();
}

QString MainWindow::statusText() const {
    return status_->text();
}

void MainWindow::setStatus(const QString& text) {
    status_->setText(text);
    statusBar()->showMessage(text);
}

void MainWindow::updateActions() {
    const bool busy = job_->running() || attaching();
    const bool idle = !recording() && !busy;
    const auto process = picker_->currentProcess();
    recordAction_->setEnabled(idle && process && process->canAttach);
    recordAction_->setToolTip(
        process && !process->canAttach
            ? tr("Cannot attach: %1").arg(QString::fromStdString(process->reason))
            : tr("Sample the selected process, all threads"));
    rateBox_->setEnabled(idle);
    stopAction_->setEnabled(recording() || attaching()); // Stop also cancels an attach
    openAction_->setEnabled(idle);
    const bool finishedSession = session_ && session_->finished();
    const bool haveSession = finishedSession && session_->canExport();
    const bool haveFile = file_ && file_->loaded();
    exportAction_->setEnabled(idle && (haveSession || haveFile));
    saveBinAction_->setEnabled(idle && finishedSession && session_->hasBinCopy());
    saveBinAction_->setToolTip(finishedSession && !session_->hasBinCopy()
                                   ? tr("This recording has no .bin copy: %1")
                                         .arg(QString::fromStdString(session_->backupProblem()))
                                   : tr("Save the recording in CPython's .bin format"));
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
    auto interval = parseSamplingRate(rateBox_->currentText().toStdString());
    if (!interval) {
        showMessage(MessageKind::Error, tr("Cannot record"),
                    QString::fromStdString(interval.error().message));
        return;
    }
    RecordingOptions options;
    options.intervalUs = *interval;
    attachCommandLine_ = QString::fromStdString(process->commandLine);
    attach_->start(process->pid, options);
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

void MainWindow::cancelAttach(const QString& why) {
    const int pid = attach_->pid();
    attach_->cancel();
    setStatus(why.isEmpty() ? tr("Attaching to pid %1 was cancelled.").arg(pid)
                            : tr("Attaching to pid %1 was cancelled: %2.").arg(pid).arg(why));
    updateActions();
}

void MainWindow::onAttachFailed(int pid, ErrorKind, const QString& message) {
    setStatus(tr("Cannot record pid %1: %2").arg(pid).arg(message));
    showMessage(MessageKind::Error, tr("Cannot record"), message);
    updateActions();
    emit attachFailed(message);
}

void MainWindow::onAttached(std::shared_ptr<RecordingSession> session) {
    session_ = std::move(session);
    session_->startSampling();
    file_.reset();
    fileInfo_->hide();
    figures_->show();
    figures_->clear();
    timeline_->clear();
    setWindowTitle(tr("gilscope — recording pid %1").arg(session_->pid()));
    setStatus(tr("Recording pid %1 · Python %2 · %3")
                  .arg(session_->pid())
                  .arg(QString::fromStdString(session_->pythonVersion()))
                  .arg(attachCommandLine_));
    liveTimer_->start();
    updateActions();
    emit recordingStarted();
}

void MainWindow::stop() {
    if (attaching()) {
        cancelAttach({});
        return;
    }
    if (!recording()) return;
    session_->finish();
    onRecordingEnded();
}

void MainWindow::tick() {
    if (!session_) return;
    figures_->setStats(session_->stats());
    timeline_->setSnapshot(session_->timeline());
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
                             .arg(QLocale().toString(qulonglong(stats.samples)))
                             .arg(stats.elapsedSec, 0, 'f', 1)
                             .arg(how);
    const std::string failure = session_->failure();
    if (!failure.empty()) {
        setStatus(tr("Recording of pid %1 stopped: %2. %3")
                      .arg(session_->pid())
                      .arg(QString::fromStdString(failure), kept));
    } else if (session_->finish() == StopReason::TargetExited) {
        // The reader says why: the process exited, or exec'd another program (its pid
        // lives on, without its Python).
        const std::string why = session_->endReason();
        if (!why.empty())
            setStatus(tr("Recording of pid %1 stopped: %2. %3")
                          .arg(session_->pid())
                          .arg(QString::fromStdString(why), kept));
        else
            setStatus(
                tr("Process %1 exited during the recording. %2").arg(session_->pid()).arg(kept));
    } else {
        setStatus(tr("Recording of pid %1 stopped. %2").arg(session_->pid()).arg(kept));
    }
    setWindowTitle(tr("gilscope — pid %1 (stopped)").arg(session_->pid()));
    updateActions();
    emit recordingEnded();
}

void MainWindow::exportProfile() {
    if (!exportAction_->isEnabled()) return;
    QString path = askSavePath(tr("Export to Firefox Profiler"), QStringLiteral("profile.json"),
                               tr("Firefox Profiler JSON (*.json)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
    const std::filesystem::path dest = path.toStdString();
    ProgressJob::Work work;
    if (session_ && session_->canExport()) {
        work = [session = session_, dest](const ProgressCallback& p, const CancelToken* c) {
            return session->exportTo(dest, p, c);
        };
    } else if (file_ && file_->loaded()) {
        work = [file = file_, dest](const ProgressCallback& p, const CancelToken* c) {
            return file->exportTo(dest, p, c);
        };
    } else {
        return;
    }
    jobPath_ = path;
    jobKind_ = Job::Export;
    job_->start(tr("Exporting to %1…").arg(QFileInfo(path).fileName()), std::move(work));
    updateActions();
}

void MainWindow::saveRecordingAsBin() {
    if (!saveBinAction_->isEnabled()) return;
    QString path = askSavePath(tr("Save recording as .bin"),
                               QStringLiteral("binary_%1.bin").arg(session_->pid()),
                               tr("CPython sampling recordings (*.bin)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".bin");
    const std::filesystem::path dest = path.toStdString();
    jobPath_ = path;
    jobKind_ = Job::SaveBin;
    // A long recording's copy is large: copy it behind the progress dialog.
    job_->start(tr("Saving %1…").arg(QFileInfo(path).fileName()),
                [session = session_, dest](const ProgressCallback& p, const CancelToken* c) {
                    return session->saveBinCopyTo(dest, p, c);
                });
    updateActions();
}

void MainWindow::openRecording() {
    if (recording() || attaching() || job_->running()) return;
    const QString path = askOpenPath();
    if (path.isEmpty()) return;
    auto holder = std::make_shared<std::shared_ptr<RecordingFile>>();
    pendingFile_ = holder;
    const std::filesystem::path source = path.toStdString();
    jobKind_ = Job::Load;
    job_->start(tr("Reading %1…").arg(QFileInfo(path).fileName()),
                [holder, source](const ProgressCallback& p, const CancelToken* c) -> Status {
                    auto file = RecordingFile::open(source);
                    if (!file) return file.error();
                    auto loaded = (*file)->load(p, c);
                    if (!loaded) return loaded.error();
                    *holder = std::shared_ptr<RecordingFile>(std::move(file).value());
                    return {};
                });
    updateActions();
}

void MainWindow::onJobFinished(bool ok, ErrorKind kind, const QString& message) {
    switch (std::exchange(jobKind_, Job::None)) {
    case Job::Export:
        onExportFinished(ok, kind, message);
        break;
    case Job::SaveBin:
        onSaveBinFinished(ok, kind, message);
        break;
    case Job::Load:
        onLoadFinished(ok, kind, message);
        break;
    case Job::None:
        break;
    }
}

void MainWindow::onExportFinished(bool ok, ErrorKind kind, const QString& message) {
    if (ok) {
        const QString text =
            tr("Saved %1.\n\nTo view it, open https://profiler.firefox.com and drop the file "
               "on the page (or choose “Load a profile from file”).")
                .arg(jobPath_);
        setStatus(tr("Exported to %1").arg(jobPath_));
        showMessage(MessageKind::Info, tr("Export finished"), text);
    } else {
        const QString again = session_ && !session_->canExport()
                                  ? tr(" This recording cannot be exported again; "
                                       "record the process anew.")
                                  : QString();
        if (kind == ErrorKind::Cancelled) {
            setStatus(tr("Export cancelled; %1 was not written.").arg(jobPath_) + again);
        } else {
            setStatus(tr("Export failed: %1").arg(message) + again);
            showMessage(MessageKind::Error, tr("Export failed"), message + again);
        }
    }
    updateActions();
    emit exportFinished(ok, ok ? jobPath_ : message);
}

void MainWindow::onSaveBinFinished(bool ok, ErrorKind kind, const QString& message) {
    if (ok) {
        setStatus(tr("Saved the recording to %1").arg(jobPath_));
        showMessage(MessageKind::Info, tr("Recording saved"),
                    tr("Saved %1.\n\ngilscope opens it with “Open recording…”; CPython 3.15 "
                       "replays it with “python3.15 -m profiling.sampling replay”.")
                        .arg(jobPath_));
    } else if (kind == ErrorKind::Cancelled) {
        setStatus(tr("Saving cancelled; nothing was written to %1.").arg(jobPath_));
    } else {
        setStatus(tr("Saving the recording failed: %1").arg(message));
        showMessage(MessageKind::Error, tr("Save failed"),
                    tr("%1\n\nNothing was written to %2; a file already there is unchanged.")
                        .arg(message, jobPath_));
    }
    updateActions();
    emit binSaved(ok, ok ? jobPath_ : message);
}

void MainWindow::onLoadFinished(bool ok, ErrorKind kind, const QString& message) {
    if (ok && pendingFile_ && *pendingFile_) {
        session_.reset();
        file_ = *pendingFile_;
        figures_->clear();
        figures_->hide(); // live figures mean nothing for a file; its info says more
        timeline_->setSnapshot(file_->timeline());
        showFileInfo();
        setWindowTitle(tr("gilscope — %1").arg(QString::fromStdString(file_->path().string())));
        setStatus(tr("Opened %1").arg(QString::fromStdString(file_->path().string())));
    } else if (kind == ErrorKind::Cancelled) {
        setStatus(tr("Opening the recording was cancelled."));
    } else {
        showMessage(MessageKind::Error, tr("Cannot open recording"), message);
        setStatus(tr("Cannot open recording: %1").arg(message));
    }
    pendingFile_.reset();
    updateActions();
    emit recordingLoaded(ok);
}

void MainWindow::showFileInfo() {
    // Label/value pairs in three column pairs, so the timelines keep the room.
    const auto rows = describeTachInfo(file_->info());
    constexpr size_t kPairsPerRow = 3;
    QString html = QStringLiteral("<table cellspacing=0 cellpadding=2>");
    for (size_t i = 0; i < rows.size(); i += kPairsPerRow) {
        html += QStringLiteral("<tr>");
        for (size_t j = i; j < std::min(rows.size(), i + kPairsPerRow); ++j)
            html += QStringLiteral("<td><i>%1</i>&nbsp;&nbsp;</td><td>%2&nbsp;&nbsp;&nbsp;&nbsp;"
                                   "&nbsp;&nbsp;</td>")
                        .arg(QString::fromStdString(rows[j].first).toHtmlEscaped(),
                             QString::fromStdString(rows[j].second).toHtmlEscaped());
        html += QStringLiteral("</tr>");
    }
    fileInfo_->setText(html + QStringLiteral("</table>"));
    fileInfo_->show();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    attach_->cancel();
    if (session_) session_->finish();
    job_->cancel();
    event->accept();
}

} // namespace gilscope::ui
