#pragma once

#include "core/common/error.h"
#include "core/session/recording_session.h"
#include "ui/launch_job.h"

#include <QDateTime>
#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace gilscope {
class RecordingFile;
} // namespace gilscope

namespace gilscope::ui {

class AttachJob;
struct WindowPrompts;

// What was recorded, for the status line and default file names.
struct RecordedProcess {
    QString commandLine; // of the process attached to, or the program launched
    QString scriptName;  // the script or module it runs ("app", "http.server")
    QDateTime started;
};

// How the recording ended, and how a launched program ended: the two are noticed in
// either order (the sampler on its next tick, the window when it reaps the child).
struct RecordingEndState {
    QString status;            // "Recording of pid N stopped: …"; empty while it runs
    QString kept;              // "N samples over S s are kept; …"
    bool targetExited = false; // the recording ended because its target did
    int pid = 0;               // the session may be gone when the program's exit is seen
    QString programExit;       // "exit code 3", once seen
    // The status line for both, whichever came last.
    QString describe() const;
};

// Attach, launch, stop: owns what is being recorded (the session) or shown (an opened
// file), drives the live refresh, and says what happened through signals. No widget:
// the window's pages observe it.
class RecordingController : public QObject {
    Q_OBJECT
public:
    explicit RecordingController(const WindowPrompts& prompts, QObject* parent = nullptr);
    ~RecordingController() override;

    bool recording() const;
    bool attaching() const; // Record was pressed; the worker is still opening the process
    // The live or ended recording, or null; shared with worker jobs, which keep it alive.
    const std::shared_ptr<RecordingSession>& session() const { return session_; }
    // An opened .bin, or null.
    const std::shared_ptr<RecordingFile>& file() const { return file_; }
    const RecordedProcess& process() const { return process_; }
    const RecordingEndState& end() const { return end_; }
    // "3.11.7", or "3.13.0 free-threaded (no GIL)": a free-threaded build says so.
    QString pythonLabel() const;

    void attach(int pid, const SessionOptions& options, const QString& commandLine);
    void launch(const LaunchRequest& request, const SessionOptions& options);
    // Stops the recording (and a launched program), or cancels an attach or a launch.
    void stop();
    void cancelAttach(const QString& why);
    int attachingPid() const;
    // An opened file is shown from now on; a finished session is let go.
    void showFile(std::shared_ptr<RecordingFile> file);
    void closeFile(); // an open that was cancelled once its tracks were shown
    // On quit: no attach goes on, the session stops sampling.
    void finishNow();

signals:
    void statusChanged(const QString& text);              // for the window's status line
    void notice(const QString& text);                     // a passing note for the status bar
    void started();                                       // session() samples
    void progressed(const gilscope::SamplerStats& stats); // 5 Hz while it records
    void ended(const gilscope::SamplerStats& stats);
    void endChanged(const QString& text); // RecordingEndState::describe(), once it changes
    void attachFailed(const QString& message);
    void attachDiscarded(int pid); // a cancelled attach ended; its session is destroyed
    void launchFailed(const QString& message);
    void programStarting(const QString& commandLine);
    void programOutput(const QString& text);
    void programExited(const QString& how); // "exit code 3"
    void changed();                         // what the window's actions may do changed

private:
    void onAttached(std::shared_ptr<RecordingSession> session);
    void onAttachFailed(int pid, ErrorKind kind, const QString& message);
    void onLaunched(std::shared_ptr<RecordingSession> session);
    void onLaunchFailed(const QString& message, const QString& exitText);
    void tick();
    void onEnded();
    void checkProgramExit();

    const WindowPrompts& prompts_;
    AttachJob* attach_;
    LaunchJob* launch_;
    QTimer* liveTimer_;
    QTimer* exitWatch_;
    std::shared_ptr<RecordingSession> session_;
    std::shared_ptr<RecordingFile> file_;
    RecordedProcess process_;
    RecordingEndState end_;
    bool programRunning_ = false; // the launched program has not been seen to end
};

} // namespace gilscope::ui
