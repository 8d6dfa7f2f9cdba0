#pragma once

#include "core/common/error.h"

#include <QMainWindow>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QTimer;

namespace gilscope {
class RecordingSession;
class RecordingFile;
} // namespace gilscope

namespace gilscope::ui {

class AnalysisPanel;
class AttachJob;
class LiveFigures;
class ProcessPicker;
class ProgressJob;
class TimelineWidget;

// The gilscope window: pick a Python process, record it (live figures and per-thread
// GIL/CPU/GC timelines while it runs), export to the Firefox Profiler or save it as a
// CPython `.bin`, or open a `.bin` recording and export that.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    enum class MessageKind { Info, Error };
    // Replaceable so tests can drive the window without modal dialogs.
    std::function<QString(const QString& title, const QString& suggestedName,
                          const QString& filter)>
        askSavePath;
    std::function<QString()> askOpenPath;
    std::function<void(MessageKind, const QString& title, const QString& text)> showMessage;

    ProcessPicker* picker() const { return picker_; }
    LiveFigures* figures() const { return figures_; }
    TimelineWidget* timeline() const { return timeline_; }
    AnalysisPanel* analysis() const { return analysis_; }
    QAction* recordAction() const { return recordAction_; }
    QAction* stopAction() const { return stopAction_; }
    QAction* exportAction() const { return exportAction_; }
    QAction* saveBinAction() const { return saveBinAction_; }
    QAction* openAction() const { return openAction_; }
    // Sampling rate for the next recording, in CPython's -r syntax ("1khz", "500", "2.5k").
    QComboBox* rateBox() const { return rateBox_; }
    QString statusText() const;
    bool recording() const;
    bool attaching() const; // Record was pressed; the worker is still opening the process

public slots:
    void record();
    void stop();
    void exportProfile();
    void saveRecordingAsBin();
    void openRecording();

signals:
    void recordingStarted();
    void attachFailed(const QString& message);
    void attachDiscarded(int pid); // a cancelled attach ended; its session is destroyed
    void recordingEnded();
    void exportFinished(bool ok, const QString& message);
    void binSaved(bool ok, const QString& pathOrMessage);
    void recordingLoaded(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    enum class Job { None, Export, SaveBin, Load };

    void buildActions();
    QWidget* buildRecordingPanel();
    void tick();
    void onProcessChanged();
    void onAttached(std::shared_ptr<RecordingSession> session);
    void onAttachFailed(int pid, ErrorKind kind, const QString& message);
    void cancelAttach(const QString& why);
    void onRecordingEnded();
    void onJobFinished(bool ok, ErrorKind kind, const QString& message);
    void onExportFinished(bool ok, ErrorKind kind, const QString& message);
    void onSaveBinFinished(bool ok, ErrorKind kind, const QString& message);
    void onLoadFinished(bool ok, ErrorKind kind, const QString& message);
    void showFileInfo();
    void setStatus(const QString& text);
    void updateActions();

    ProcessPicker* picker_;
    LiveFigures* figures_;
    TimelineWidget* timeline_;
    QLabel* status_;
    QLabel* fileInfo_;
    QTimer* liveTimer_;
    ProgressJob* job_;
    AttachJob* attach_;
    QAction* recordAction_ = nullptr;
    QAction* stopAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* saveBinAction_ = nullptr;
    QAction* openAction_ = nullptr;
    QComboBox* rateBox_ = nullptr;
    AnalysisPanel* analysis_ = nullptr; // top functions, trees, flame graph (a dock)

    // Shared with worker jobs, which keep them alive until they are done.
    std::shared_ptr<RecordingSession> session_;
    std::shared_ptr<RecordingFile> file_;
    std::shared_ptr<std::shared_ptr<RecordingFile>> pendingFile_;
    Job jobKind_ = Job::None;
    QString jobPath_;           // the file the running export or save writes
    QString attachCommandLine_; // of the process being attached to, for the status
};

} // namespace gilscope::ui
