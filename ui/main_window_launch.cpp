// Launch script…: start a Python program held before its first line (core/launch, as
// `gilscope run` does), record it, show its output, and say how it ended.
#include "ui/main_window.h"

#include "core/session/recording_session.h"
#include "ui/job_runner.h"
#include "ui/launch_job.h"
#include "ui/record_options_bar.h"

#include <QPlainTextEdit>
#include <QScrollBar>
#include <QStatusBar>
#include <QTimer>

namespace gilscope::ui {

void MainWindow::launchScript() {
    if (recording() || attaching() || job_->running()) return;
    const auto request = askLaunch();
    if (request) launch(*request);
}

void MainWindow::launch(const LaunchRequest& request) {
    if (recording() || attaching() || job_->running()) return;
    auto options = options_->options();
    if (!options) {
        showMessage(MessageKind::Error, tr("Cannot record"),
                    QString::fromStdString(options.error().message));
        return;
    }
    if (!settleUnsaved(After::Launch)) {
        pendingLaunch_ = request;
        return;
    }
    const QString command = request.commandLine().join(QLatin1Char(' '));
    attachCommandLine_ = command;
    output_->clear();
    output_->show();
    appendOutput(QStringLiteral("$ %1\n").arg(command));
    programRunning_ = true;
    launch_->start(request, *options);
    if (launch_->busy()) {
        exitWatch_->start();
        setStatus(tr("Starting %1…").arg(command));
    }
    updateActions();
}

void MainWindow::onLaunched(std::shared_ptr<RecordingSession> session, int pid) {
    Q_UNUSED(pid);
    onAttached(std::move(session)); // starts sampling
    // The program runs its first line only once the first tick was taken (as `gilscope
    // run` does), so the recording starts first even when the sampler thread is slow
    // to be scheduled.
    auto* firstTick = new QTimer(this);
    firstTick->setInterval(1);
    connect(firstTick, &QTimer::timeout, this, [this, firstTick] {
        if (session_ && !session_->firstTickTaken()) return;
        firstTick->stop();
        firstTick->deleteLater();
        launch_->release();
    });
    firstTick->start();
}

void MainWindow::onLaunchFailed(const QString& message, const QString& exitText) {
    programRunning_ = false;
    exitWatch_->stop();
    const QString how = exitText.isEmpty() ? QString() : tr(" (%1)").arg(exitText);
    setStatus(tr("The program could not be recorded: %1%2").arg(message, how));
    if (!exitText.isEmpty()) appendOutput(tr("\n[%1]\n").arg(exitText));
    showMessage(MessageKind::Error, tr("Cannot launch and record"), message + how);
    updateActions();
    emit launchFailed(message);
}

void MainWindow::appendOutput(const QString& text) {
    // Appended as it comes (lines may arrive in pieces); follows the end unless the
    // user scrolled up to read.
    QScrollBar* bar = output_->verticalScrollBar();
    const bool atEnd = bar->value() >= bar->maximum() - 2;
    QTextCursor end(output_->document());
    end.movePosition(QTextCursor::End);
    end.insertText(text);
    if (atEnd) bar->setValue(bar->maximum());
}

void MainWindow::checkProgramExit() {
    if (!programRunning_ || launch_->busy() || !launch_->exited()) return;
    programRunning_ = false;
    exitWatch_->stop();
    if (recording()) tick(); // let the recording see the end first
    const QString how = launch_->exitText();
    appendOutput(tr("\n[%1]\n").arg(how));
    programExit_ = how;
    showEndStatus();
    emit programExited(how);
}

void MainWindow::showEndStatus() {
    // The recording's end and a launched program's exit are noticed in either order
    // (the sampler on its next tick, the window when it reaps the child): the status
    // says both, whichever came last.
    QString text;
    if (endStatus_.isEmpty())
        text = tr("The program ended (%1); the recording is finishing…").arg(programExit_);
    else if (programExit_.isEmpty())
        text = endStatus_;
    else if (endTargetExited_)
        text = tr("Recording of pid %1 stopped: the program ended (%2). %3")
                   .arg(endPid_)
                   .arg(programExit_, endKept_);
    else
        text = endStatus_ + QLatin1Char(' ') + tr("The program ended (%1).").arg(programExit_);
    // Once the window has moved on (an export, a save), a late word goes to the status bar.
    if (!shownEnd_.isEmpty() && statusText() != shownEnd_) {
        statusBar()->showMessage(text, 15000);
        return;
    }
    setStatus(text);
    shownEnd_ = text;
}

} // namespace gilscope::ui
