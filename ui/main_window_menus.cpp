// The window's toolbars and menus, what each action does, and when it may.
#include "ui/main_window.h"

#include "core/session/recording_session.h"
#include "ui/analysis/compare_bar.h"
#include "ui/file_flow.h"
#include "ui/process_picker.h"
#include "ui/recent_files.h"
#include "ui/record_options_bar.h"
#include "ui/recording_controller.h"
#include "ui/recording_page.h"
#include "ui/snapshot/snapshot_dialog.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QToolBar>

namespace gilscope::ui {

void MainWindow::connectActions() {
    connect(actions_.record, &QAction::triggered, this, &MainWindow::record);
    connect(actions_.stop, &QAction::triggered, this, &MainWindow::stop);
    connect(actions_.launch, &QAction::triggered, this, &MainWindow::launchScript);
    connect(actions_.open, &QAction::triggered, this, &MainWindow::openRecording);
    connect(actions_.exportProfile, &QAction::triggered, this, &MainWindow::exportProfile);
    connect(actions_.saveBin, &QAction::triggered, this, &MainWindow::saveRecordingAsBin);
    connect(actions_.snapshot, &QAction::triggered, this, &MainWindow::showSnapshot);
    connect(actions_.mark, &QAction::triggered, this, &MainWindow::addMarker);
    connect(actions_.about, &QAction::triggered, this, &MainWindow::showAbout);
    connect(actions_.resetLayout, &QAction::triggered, this, &MainWindow::resetLayout);
    connect(actions_.page, &QAction::triggered, this, [this] {
        if (showingRecording())
            showProcessPicker();
        else
            showRecordingView();
    });
}

void MainWindow::buildToolbars() {
    auto* toolbar = addToolBar(tr("Recording"));
    toolbar->setObjectName(QStringLiteral("recordingToolbar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addAction(actions_.page);
    toolbar->addAction(actions_.record);
    toolbar->addAction(actions_.stop);
    toolbar->addAction(actions_.launch);
    toolbar->addAction(actions_.snapshot);
    toolbar->addSeparator();
    toolbar->addAction(actions_.open);
    toolbar->addAction(actions_.exportProfile);
    toolbar->addAction(actions_.saveBin);
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
}

void MainWindow::buildMenus() {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(actions_.open);
    recentMenu_ = file->addMenu(tr("Open recent"));
    recentMenu_->setObjectName(QStringLiteral("recentMenu"));
    recent_->fillMenu(recentMenu_);
    connect(recent_, &RecentFiles::changed, this, [this] { recent_->fillMenu(recentMenu_); });
    file->addAction(actions_.exportProfile);
    file->addAction(actions_.saveBin);
    file->addSeparator();
    file->addAction(actions_.snapshot);
    file->addSeparator();
    file->addAction(compare()->compareAction());
    file->addAction(compare()->clearAction());
    file->addSeparator();
    file->addAction(tr("Firefox Profiler address…"), files_, &FileFlow::askProfilerAddress);
    file->addSeparator();
    file->addAction(tr("Quit"), QKeySequence::Quit, this, &QWidget::close);
    auto* rec = menuBar()->addMenu(tr("&Recording"));
    rec->addAction(actions_.record);
    rec->addAction(actions_.launch);
    rec->addAction(actions_.stop);
    rec->addAction(actions_.mark);
    rec->addSeparator();
    rec->addAction(actions_.page);
    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(actions_.resetLayout);
    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(actions_.about);
}

void MainWindow::updateActions() {
    updatePage();
    const bool busy = files_->busy() || attaching();
    const bool idle = !recording() && !busy;
    const auto process = picker()->currentProcess();
    options_->setTargetVersion(process ? QString::fromStdString(process->version) : QString());
    // Options the process cannot be recorded with disable Record; the bar says why.
    const QString optionsProblem = options_->problem();
    actions_.record->setEnabled(idle && process && process->canAttach && optionsProblem.isEmpty());
    actions_.record->setToolTip(
        process && !process->canAttach
            ? tr("Cannot attach: %1").arg(QString::fromStdString(process->reason))
        : !optionsProblem.isEmpty()
            ? tr("Cannot record: %1").arg(optionsProblem)
            : tr("Sample the selected process: %1").arg(options_->summary()));
    options_->setEnabled(idle);
    actions_.mark->setEnabled(recording());
    // A snapshot reads the process being recorded, else the one selected.
    const int snapshotPid = snapshotTarget();
    actions_.snapshot->setEnabled(snapshotPid > 0);
    actions_.snapshot->setToolTip(
        snapshotPid > 0
            ? tr("Every thread of pid %1 now: frames, source lines and variables").arg(snapshotPid)
        : process && !process->canAttach
            ? tr("Cannot attach: %1").arg(QString::fromStdString(process->reason))
            : tr("Select a process to see what its threads are doing"));
    actions_.stop->setEnabled(recording() || attaching()); // Stop also cancels an attach
    actions_.launch->setEnabled(idle);
    actions_.open->setEnabled(idle);
    actions_.exportProfile->setEnabled(idle && files_->canExport());
    actions_.saveBin->setEnabled(idle && files_->canSaveBin());
    actions_.saveBin->setToolTip(files_->saveBinTip());
}

int MainWindow::snapshotTarget() const {
    if (recording()) return controller_->session()->pid();
    const auto process = picker()->currentProcess();
    return process && process->canAttach ? process->pid : 0;
}

void MainWindow::showSnapshot() {
    const int pid = snapshotTarget();
    if (pid <= 0) return;
    const auto process = picker()->currentProcess();
    const QString name = process && process->pid == pid
                             ? QString::fromStdString(process->commandLine)
                             : processName_->text();
    // Each snapshot is a window of its own, so two moments can be compared side by side.
    const auto door = recording() ? controller_->session()->process() : nullptr;
    auto* dialog =
        door ? new SnapshotDialog(door, name, this) : new SnapshotDialog(pid, name, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::addMarker() {
    if (!recording()) return;
    const QString text = prompts_.askMarkText();
    if (text.isEmpty() || !recording()) return; // cancelled, or it ended meanwhile
    controller_->session()->mark(text.toStdString());
}

QComboBox* MainWindow::rateBox() const {
    return options_->rateBox();
}

} // namespace gilscope::ui
