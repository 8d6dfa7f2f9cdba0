#pragma once

#include "core/launch/gated_child.h"
#include "core/session/recording_session.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

class QSocketNotifier;

namespace gilscope::ui {

class JobRunner;

// What the Launch script dialog asks for.
struct LaunchRequest {
    QString interpreter;             // path of a python executable
    bool module = false;             // target is a module name (-m), else a script path
    QString target;                  // script path or module name
    QStringList arguments;           // for the script or module
    QString workDir;                 // empty: gilscope's own
    QStringList environment;         // NAME=value additions
    QStringList commandLine() const; // interpreter [-m] target arguments
};

// Starts a Python program held before its first line (core/launch, the same start-up
// hook as `gilscope run`), opens it on a worker thread, and hands over a session ready
// to sample and the running child. Its stdout and stderr come as output() text.
class LaunchJob : public QObject {
    Q_OBJECT
public:
    explicit LaunchJob(QObject* parent = nullptr);
    ~LaunchJob() override;

    void start(const LaunchRequest& request, const SessionOptions& options);
    bool busy() const;
    void cancel(); // terminates the program being started; failed() follows
    // The program launched last (running, or exited and reaped), if any.
    GatedChild* child() const { return child_.get(); }
    // Lets the held program run; call once sampling has started.
    void release();
    // Reaps the program if it has exited; then exitText() says how it ended.
    bool exited();
    QString exitText() const; // "exit code 3", "killed by signal 9 (SIGKILL)"
    void terminate();         // a program still running when a new one starts or we quit

signals:
    void launched(std::shared_ptr<gilscope::RecordingSession> session, int pid);
    void failed(const QString& message, const QString& exitText);
    void output(const QString& text);
    void notice(const QString& text);

private:
    struct Outcome {
        std::unique_ptr<StackSource> source;
        Error error;
    };
    void onAttached(Result<std::shared_ptr<Outcome>> outcome);
    void readOutput();

    std::shared_ptr<GatedChild> child_;
    JobRunner* attach_; // a new start supersedes an attach still running: its result goes
    QSocketNotifier* outputNotifier_ = nullptr;
    SessionOptions options_;
};

} // namespace gilscope::ui
