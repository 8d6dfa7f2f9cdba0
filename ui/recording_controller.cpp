#include "ui/recording_controller.h"

#include "core/session/recording_file.h"
#include "ui/attach_job.h"
#include "ui/window_dialogs.h"
#include "ui/window_prompts.h"

#include <QLocale>
#include <QTimer>

namespace gilscope::ui {

QString RecordingEndState::describe() const {
    if (status.isEmpty())
        return RecordingController::tr("The program ended (%1); the recording is finishing…")
            .arg(programExit);
    if (programExit.isEmpty()) return status;
    if (targetExited)
        return RecordingController::tr("Recording of pid %1 stopped: the program ended (%2). %3")
            .arg(pid)
            .arg(programExit, kept);
    return status + QLatin1Char(' ') +
           RecordingController::tr("The program ended (%1).").arg(programExit);
}

RecordingController::RecordingController(const WindowPrompts& prompts, QObject* parent)
    : QObject(parent), prompts_(prompts), attach_(new AttachJob(this)),
      launch_(new LaunchJob(this)), liveTimer_(new QTimer(this)), exitWatch_(new QTimer(this)) {
    connect(attach_, &AttachJob::attached, this, &RecordingController::onAttached);
    connect(attach_, &AttachJob::failed, this, &RecordingController::onAttachFailed);
    connect(attach_, &AttachJob::discarded, this, &RecordingController::attachDiscarded);
    connect(
        launch_, &LaunchJob::launched, this,
        [this](std::shared_ptr<RecordingSession> session, int) { onLaunched(std::move(session)); });
    connect(launch_, &LaunchJob::failed, this, &RecordingController::onLaunchFailed);
    connect(launch_, &LaunchJob::output, this, &RecordingController::programOutput);
    connect(launch_, &LaunchJob::notice, this, &RecordingController::notice);
    liveTimer_->setInterval(200); // 5 Hz: figures and timelines, never per sample
    connect(liveTimer_, &QTimer::timeout, this, &RecordingController::tick);
    exitWatch_->setInterval(100); // reaps the launched program once it has ended
    connect(exitWatch_, &QTimer::timeout, this, &RecordingController::checkProgramExit);
}

RecordingController::~RecordingController() {
    if (session_) session_->finish();
}

bool RecordingController::recording() const {
    return session_ && !session_->finished();
}

bool RecordingController::attaching() const {
    return attach_->busy() || launch_->busy();
}

int RecordingController::attachingPid() const {
    return attach_->pid();
}

QString RecordingController::pythonLabel() const {
    if (!session_) return {};
    return QString::fromStdString(session_->pythonVersion()) +
           (session_->freeThreaded() ? tr(" free-threaded (no GIL)") : QString());
}

void RecordingController::attach(int pid, const SessionOptions& options,
                                 const QString& commandLine) {
    process_.commandLine = commandLine;
    attach_->start(pid, options);
    emit statusChanged(tr("Attaching to PID %1…").arg(pid));
    emit changed();
}

void RecordingController::cancelAttach(const QString& why) {
    const int pid = attach_->pid();
    attach_->cancel();
    emit statusChanged(why.isEmpty()
                           ? tr("Attaching to pid %1 was cancelled.").arg(pid)
                           : tr("Attaching to pid %1 was cancelled: %2.").arg(pid).arg(why));
    emit changed();
}

void RecordingController::onAttachFailed(int pid, ErrorKind kind, const QString& message) {
    const QString text = adviceForWindow(kind, message);
    emit statusChanged(
        tr("Cannot record pid %1: %2")
            .arg(pid)
            .arg(QString(text).replace(QStringLiteral("\n\n"), QStringLiteral(" "))));
    prompts_.showMessage(MessageKind::Error, tr("Cannot record process %1").arg(pid), text);
    emit changed();
    emit attachFailed(message);
}

void RecordingController::onAttached(std::shared_ptr<RecordingSession> session) {
    session_ = std::move(session);
    session_->startSampling();
    end_ = {};
    process_.scriptName = scriptNameOf(process_.commandLine);
    process_.started = QDateTime::currentDateTime();
    file_.reset();
    liveTimer_->start();
    emit started();
    emit changed();
}

void RecordingController::launch(const LaunchRequest& request, const SessionOptions& options) {
    const QString command = request.commandLine().join(QLatin1Char(' '));
    process_.commandLine = command;
    emit programStarting(command);
    programRunning_ = true;
    launch_->start(request, options);
    if (launch_->busy()) {
        exitWatch_->start();
        emit statusChanged(tr("Starting %1…").arg(command));
    }
    emit changed();
}

void RecordingController::onLaunched(std::shared_ptr<RecordingSession> session) {
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

void RecordingController::onLaunchFailed(const QString& message, const QString& exitText) {
    programRunning_ = false;
    exitWatch_->stop();
    const QString how = exitText.isEmpty() ? QString() : tr(" (%1)").arg(exitText);
    emit statusChanged(tr("The program could not be recorded: %1%2").arg(message, how));
    if (!exitText.isEmpty()) emit programOutput(tr("\n[%1]\n").arg(exitText));
    prompts_.showMessage(MessageKind::Error, tr("Cannot launch and record"), message + how);
    emit changed();
    emit launchFailed(message);
}

void RecordingController::stop() {
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
    onEnded();
}

void RecordingController::tick() {
    if (!session_) return;
    emit progressed(session_->stats());
    if (!session_->finished() && !session_->running()) {
        session_->finish(); // the target exited, or a sink failed
        onEnded();
    }
}

void RecordingController::onEnded() {
    liveTimer_->stop();
    const SamplerStats stats = session_->stats();
    const QString how = session_->hasBinCopy()
                            ? tr("export them with “Export to Firefox Profiler…” or keep them "
                                 "with “Save recording as .bin…”")
                            : tr("export them with “Export to Firefox Profiler…”");
    end_.kept = tr("%1 samples over %2 s are kept; %3.")
                    .arg(QLocale().toString(qulonglong(stats.okTicks)))
                    .arg(stats.elapsedSec, 0, 'f', 1)
                    .arg(how);
    const StopReason reason = session_->finish();
    const RecordingEnd end = session_->end();
    end_.targetExited = end.failure.empty() && reason == StopReason::TargetExited;
    end_.pid = session_->pid();
    const std::string why = end.describe();
    end_.status = why.empty() ? tr("Recording of pid %1 stopped. %2").arg(end_.pid).arg(end_.kept)
                              : tr("Recording of pid %1 stopped: %2. %3")
                                    .arg(end_.pid)
                                    .arg(QString::fromStdString(why), end_.kept);
    emit endChanged(end_.describe());
    emit ended(stats); // the window's recordingEnded() comes last, with all of it shown
}

void RecordingController::checkProgramExit() {
    if (!programRunning_ || launch_->busy() || !launch_->exited()) return;
    programRunning_ = false;
    exitWatch_->stop();
    if (recording()) tick(); // let the recording see the end first
    const QString how = launch_->exitText();
    emit programOutput(tr("\n[%1]\n").arg(how));
    end_.programExit = how;
    emit endChanged(end_.describe());
    emit programExited(how);
}

void RecordingController::showFile(std::shared_ptr<RecordingFile> file) {
    session_.reset();
    file_ = std::move(file);
    emit changed();
}

void RecordingController::closeFile() {
    file_.reset();
    emit changed();
}

void RecordingController::finishNow() {
    attach_->cancel();
    if (session_) session_->finish();
}

} // namespace gilscope::ui
