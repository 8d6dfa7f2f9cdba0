#include "ui/main_window.h"

#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "ui/analysis/compare_bar.h"
#include "ui/job_runner.h"
#include "ui/process_picker.h"
#include "ui/record_options_bar.h"
#include "ui/snapshot/snapshot_dialog.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QStackedWidget>
#include <QToolBar>

namespace gilscope::ui {

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
    // QKeySequence::SaveAs is empty on some platforms (then the shortcut did nothing).
    saveBinAction_->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_S);
    aboutAction_ = new QAction(tr("About gilscope"), this);
    aboutAction_->setObjectName(QStringLiteral("aboutAction"));
    connect(aboutAction_, &QAction::triggered, this, &MainWindow::showAbout);
    launchAction_ = new QAction(tr("Launch script…"), this);
    launchAction_->setObjectName(QStringLiteral("launchAction"));
    launchAction_->setShortcut(Qt::CTRL | Qt::Key_L);
    launchAction_->setToolTip(tr("Start a Python program and record it from its first line"));
    connect(launchAction_, &QAction::triggered, this, &MainWindow::launchScript);
    connect(recordAction_, &QAction::triggered, this, &MainWindow::record);
    connect(stopAction_, &QAction::triggered, this, &MainWindow::stop);
    connect(openAction_, &QAction::triggered, this, &MainWindow::openRecording);
    connect(exportAction_, &QAction::triggered, this, &MainWindow::exportProfile);
    connect(saveBinAction_, &QAction::triggered, this, &MainWindow::saveRecordingAsBin);

    // The menu says what it does; the toolbar names it as profilers do (iconText).
    snapshotAction_ = new QAction(tr("Dump all threads…"), this);
    snapshotAction_->setIconText(tr("Snapshot"));
    snapshotAction_->setObjectName(QStringLiteral("snapshotAction"));
    snapshotAction_->setShortcut(Qt::CTRL | Qt::Key_D);
    connect(snapshotAction_, &QAction::triggered, this, &MainWindow::showSnapshot);

    markAction_ = new QAction(tr("Add marker…"), this);
    markAction_->setObjectName(QStringLiteral("markAction"));
    markAction_->setShortcut(Qt::CTRL | Qt::Key_M);
    markAction_->setToolTip(tr("A named instant now, drawn across every track and kept in the "
                               "Firefox Profiler export"));
    connect(markAction_, &QAction::triggered, this, &MainWindow::addMarker);

    pageAction_ = new QAction(tr("◀ Processes"), this);
    pageAction_->setObjectName(QStringLiteral("pageAction"));
    connect(pageAction_, &QAction::triggered, this, [this] {
        if (showingRecording())
            showProcessPicker();
        else
            showRecordingView();
    });
    resetLayoutAction_ = new QAction(tr("Reset layout"), this);
    resetLayoutAction_->setObjectName(QStringLiteral("resetLayoutAction"));
    resetLayoutAction_->setToolTip(tr("The window's first size; the track area fits its tracks"));
    connect(resetLayoutAction_, &QAction::triggered, this, &MainWindow::resetLayout);

    auto* toolbar = addToolBar(tr("Recording"));
    toolbar->setObjectName(QStringLiteral("recordingToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(pageAction_);
    toolbar->addAction(recordAction_);
    toolbar->addAction(stopAction_);
    toolbar->addAction(launchAction_);
    toolbar->addAction(snapshotAction_);
    toolbar->addSeparator();
    toolbar->addAction(openAction_);
    toolbar->addAction(exportAction_);
    toolbar->addAction(saveBinAction_);
    toolbar->addSeparator();
    processName_ = new QLabel(toolbar);
    processName_->setObjectName(QStringLiteral("processName"));
    processName_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    toolbar->addWidget(processName_);
    // The options get a line of their own, so the window stays usable at 1024 px.
    addToolBarBreak();
    optionsBar_ = addToolBar(tr("Recording options"));
    optionsBar_->setObjectName(QStringLiteral("recordOptionsToolbar"));
    optionsBar_->setMovable(false);
    options_->addTo(optionsBar_);
    connect(options_, &RecordOptionsBar::changed, this, &MainWindow::updateActions);

    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(openAction_);
    recentMenu_ = file->addMenu(tr("Open recent"));
    recentMenu_->setObjectName(QStringLiteral("recentMenu"));
    rebuildRecentMenu();
    file->addAction(exportAction_);
    file->addAction(saveBinAction_);
    file->addSeparator();
    file->addAction(snapshotAction_);
    file->addSeparator();
    compare_ = new CompareBar(this); // attached to the analysis panel once it exists
    file->addAction(compare_->compareAction());
    file->addAction(compare_->clearAction());
    file->addSeparator();
    file->addAction(tr("Firefox Profiler address…"), this, &MainWindow::askProfilerAddress);
    file->addSeparator();
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &QWidget::close);
    auto* rec = menuBar()->addMenu(tr("&Recording"));
    rec->addAction(recordAction_);
    rec->addAction(launchAction_);
    rec->addAction(stopAction_);
    rec->addAction(markAction_);
    rec->addSeparator();
    rec->addAction(pageAction_);
    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(resetLayoutAction_);
    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(aboutAction_);
}

void MainWindow::updateActions() {
    if (pages_ && pages_->count() == 2) updatePage();
    const bool busy = job_->running() || attaching();
    const bool idle = !recording() && !busy;
    const auto process = picker_->currentProcess();
    options_->setTargetVersion(process ? QString::fromStdString(process->version) : QString());
    // Options the process cannot be recorded with disable Record; the bar says why.
    const QString optionsProblem = options_->problem();
    recordAction_->setEnabled(idle && process && process->canAttach && optionsProblem.isEmpty());
    recordAction_->setToolTip(
        process && !process->canAttach
            ? tr("Cannot attach: %1").arg(QString::fromStdString(process->reason))
        : !optionsProblem.isEmpty()
            ? tr("Cannot record: %1").arg(optionsProblem)
            : tr("Sample the selected process: %1").arg(options_->summary()));
    options_->setEnabled(idle);
    markAction_->setEnabled(recording());
    // A snapshot reads the process being recorded, else the one selected.
    const int snapshotPid = snapshotTarget();
    snapshotAction_->setEnabled(snapshotPid > 0);
    snapshotAction_->setToolTip(
        snapshotPid > 0
            ? tr("Every thread of pid %1 now: frames, source lines and variables").arg(snapshotPid)
        : process && !process->canAttach
            ? tr("Cannot attach: %1").arg(QString::fromStdString(process->reason))
            : tr("Select a process to see what its threads are doing"));
    stopAction_->setEnabled(recording() || attaching()); // Stop also cancels an attach
    launchAction_->setEnabled(idle);
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

int MainWindow::snapshotTarget() const {
    if (session_ && recording()) return session_->pid();
    const auto process = picker_->currentProcess();
    return process && process->canAttach ? process->pid : 0;
}

void MainWindow::showSnapshot() {
    const int pid = snapshotTarget();
    if (pid <= 0) return;
    const auto process = picker_->currentProcess();
    const QString name = process && process->pid == pid
                             ? QString::fromStdString(process->commandLine)
                             : processName_->text();
    // Each snapshot is a window of its own, so two moments can be compared side by side.
    auto* dialog = new SnapshotDialog(pid, name, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::addMarker() {
    if (!session_ || !recording()) return;
    const QString text = askMarkText();
    if (text.isEmpty() || !recording()) return; // cancelled, or it ended meanwhile
    session_->mark(text.toStdString());
}

QComboBox* MainWindow::rateBox() const {
    return options_->rateBox();
}

} // namespace gilscope::ui
