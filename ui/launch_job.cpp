#include "ui/launch_job.h"

#include "ui/job_runner.h"

#include <QSocketNotifier>

#include <csignal>
#include <cstring>
#include <unistd.h>

namespace gilscope::ui {

QStringList LaunchRequest::commandLine() const {
    QStringList argv{interpreter};
    if (module) argv << QStringLiteral("-m");
    argv << target << arguments;
    return argv;
}

LaunchJob::LaunchJob(QObject* parent) : QObject(parent), attach_(new JobRunner(this)) {
}

LaunchJob::~LaunchJob() {
    cancel(); // the worker's attach ends when the program does (attach_ waits for it)
    terminate();
}

bool LaunchJob::busy() const {
    return attach_->running();
}

void LaunchJob::start(const LaunchRequest& request, const SessionOptions& options) {
    terminate();
    delete outputNotifier_;
    outputNotifier_ = nullptr;
    options_ = options;
    std::vector<std::string> argv;
    for (const QString& a : request.commandLine())
        argv.push_back(a.toStdString());
    LaunchOptions launch;
    launch.workDir = request.workDir.toStdString();
    launch.captureOutput = true;
    for (const QString& line : request.environment) {
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq > 0)
            launch.extraEnv.emplace_back(line.left(eq).trimmed().toStdString(),
                                         line.mid(eq + 1).toStdString());
    }
    auto child = GatedChild::launch(argv, launch);
    if (!child) {
        emit failed(QString::fromStdString(child.error().message), {});
        return;
    }
    child_ = std::shared_ptr<GatedChild>(std::move(child).value());
    outputNotifier_ = new QSocketNotifier(child_->outputFd(), QSocketNotifier::Read, this);
    connect(outputNotifier_, &QSocketNotifier::activated, this, &LaunchJob::readOutput);

    const ReadOptions read = RecordingSession::readOptionsFor(options);
    attach_->start<std::shared_ptr<Outcome>>(
        QString(),
        [child = child_, read, this](const ProgressCallback&, const CancelToken*) {
            auto outcome = std::make_shared<Outcome>();
            auto source = child->attach(read, [this](const std::string& text) {
                QMetaObject::invokeMethod(
                    this, [this, t = QString::fromStdString(text)] { emit notice(t); });
            });
            if (source)
                outcome->source = std::move(source).value();
            else
                outcome->error = source.error();
            return Result<std::shared_ptr<Outcome>>(std::move(outcome));
        },
        [this](Result<std::shared_ptr<Outcome>> outcome) { onAttached(std::move(outcome)); });
}

void LaunchJob::onAttached(Result<std::shared_ptr<Outcome>> result) {
    // An attach that threw ends here as the launch's error, like one that failed.
    auto outcome = result ? std::move(*result) : std::make_shared<Outcome>();
    if (!result) outcome->error = result.error();
    if (!outcome->source) {
        readOutput();
        if (child_) child_->terminate(500);
        emit failed(QString::fromStdString(outcome->error.message), exitText());
        return;
    }
    const int pid = outcome->source->pid();
    auto session = RecordingSession::fromSource(std::move(outcome->source), options_);
    if (!session) {
        readOutput();
        if (child_) child_->terminate(500);
        emit failed(QString::fromStdString(session.error().message), exitText());
        return;
    }
    emit launched(std::shared_ptr<RecordingSession>(std::move(*session)), pid);
}

void LaunchJob::readOutput() {
    if (!child_ || child_->outputFd() < 0) return;
    char buf[16384];
    QByteArray got;
    for (;;) {
        const ssize_t n = ::read(child_->outputFd(), buf, sizeof buf);
        if (n > 0) {
            got.append(buf, n);
            if (got.size() > (1 << 20)) break; // the rest on the next notification
            continue;
        }
        if (n == 0 && outputNotifier_) outputNotifier_->setEnabled(false); // all writers gone
        break;
    }
    if (!got.isEmpty()) emit output(QString::fromUtf8(got));
}

void LaunchJob::cancel() {
    if (child_ && !child_->exited()) ::kill(child_->pid(), SIGTERM);
}

void LaunchJob::release() {
    if (child_) child_->release();
}

bool LaunchJob::exited() {
    if (!child_ || !child_->exited()) return false;
    readOutput();
    return true;
}

QString LaunchJob::exitText() const {
    if (!child_ || !child_->exitCode()) return {};
    if (const auto sig = child_->exitSignal())
        return tr("killed by signal %1 (SIG%2)")
            .arg(*sig)
            .arg(QString::fromLatin1(sigabbrev_np(*sig)));
    return tr("exit code %1").arg(*child_->exitCode());
}

void LaunchJob::terminate() {
    if (child_ && !child_->exited()) child_->terminate(1000);
}

} // namespace gilscope::ui
