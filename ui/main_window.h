#pragma once

#include "core/common/error.h"

#include "ui/launch_job.h"
#include <QDateTime>

#include <QMainWindow>
#include <QMap>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QSettings;
class QToolBar;
class QListWidget;
class QScrollArea;
class QSplitter;
class QStackedWidget;
class QTimer;
class QToolButton;

namespace gilscope {
class RecordingSession;
class RecordingFile;
} // namespace gilscope

namespace gilscope::net {
class ProfileServer;
} // namespace gilscope::net

namespace gilscope::ui {

class AnalysisPanel;
class CompareBar;
class AttachJob;
class JobRunner;
class LiveFigures;
class ProcessPicker;
class RateChart;
class RecordOptionsBar;
class TimelineWidget;

// The gilscope window: pick a Python process, record it (live figures and per-thread
// GIL/CPU/GC timelines while it runs), export to the Firefox Profiler or save it as a
// CPython `.bin`, or open a `.bin` recording and export that.
// Two pages: the start page (the process table, Launch script…, Open recording…,
// recent files) and, once something is recorded or opened, the recording: a slim
// header (figures, a rate strip), the thread tracks and the analysis views below them.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // settings: where choices are remembered between runs (rate and options, geometry,
    // folders, filter, recent files); none when null (tests).
    explicit MainWindow(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    enum class MessageKind { Info, Error };
    // What to do with a recording that was neither saved nor exported.
    enum class UnsavedChoice { SaveBin, Export, Discard, Cancel };
    // What to do with a profile just exported.
    enum class ExportChoice { OpenInProfiler, ShowInFolder, CopyPath, Close };
    // Replaceable so tests can drive the window without modal dialogs.
    std::function<QString(const QString& title, const QString& suggestedName,
                          const QString& filter)>
        askSavePath;
    std::function<QString()> askOpenPath;
    std::function<void(MessageKind, const QString& title, const QString& text)> showMessage;
    std::function<UnsavedChoice(const QString& text, bool canSaveBin)> askUnsaved;
    std::function<ExportChoice(const QString& path)> askAfterExport;
    std::function<bool(const QUrl&)> openUrl; // the default browser or file manager
    // The Launch script dialog; nullopt when cancelled.
    std::function<std::optional<LaunchRequest>()> askLaunch;
    // Recording › Add marker…: the marker's text (empty: cancelled).
    std::function<QString()> askMarkText;

    ProcessPicker* picker() const { return picker_; }
    LiveFigures* figures() const { return figures_; }
    TimelineWidget* timeline() const { return timeline_; }
    RateChart* rateChart() const { return rateChart_; }
    net::ProfileServer* profileServer() const { return profileServer_; }
    AnalysisPanel* analysis() const { return analysis_; }
    CompareBar* compare() const { return compare_; }
    QAction* recordAction() const { return recordAction_; }
    QAction* stopAction() const { return stopAction_; }
    QAction* exportAction() const { return exportAction_; }
    QAction* saveBinAction() const { return saveBinAction_; }
    QAction* openAction() const { return openAction_; }
    QAction* launchAction() const { return launchAction_; }
    QPlainTextEdit* outputPane() const { return output_; }
    QMenu* recentMenu() const { return recentMenu_; }
    // Thread tracks above, analysis views (and a launched program's output) below.
    QSplitter* splitter() const { return splitter_; }
    QScrollArea* tracksArea() const { return tracksArea_; }
    QStackedWidget* pages() const { return pages_; }
    bool showingRecording() const; // the recording page, not the start page
    QAction* pageAction() const { return pageAction_; }
    QAction* resetLayoutAction() const { return resetLayoutAction_; }
    QAction* snapshotAction() const { return snapshotAction_; }
    QAction* markAction() const { return markAction_; }
    QToolButton* rateToggle() const { return rateToggle_; }
    // The window's first size on a screen with this much room (90 %, at most 1600x1000).
    static QSize defaultSize(QSize available);
    QStringList recentFiles() const { return recentFiles_; }
    // The folder the next file dialog starts in, per kind ("export", "save", "open").
    QString lastFolder(const QString& kind) const;
    // Has a finished recording that was neither exported nor saved.
    bool hasUnsavedRecording() const { return unsaved_; }
    static QString aboutText(); // version, Qt version, supported Pythons, licence
    // Sampling rate for the next recording, in CPython's -r syntax ("1khz", "500", "2.5k").
    QComboBox* rateBox() const;
    RecordOptionsBar* recordOptions() const { return options_; }
    QString statusText() const;
    bool recording() const;
    bool attaching() const;     // Record was pressed; the worker is still opening the process
    int snapshotTarget() const; // the pid a Snapshot reads (0: none)

public slots:
    void record();
    void stop();
    void exportProfile();
    void saveRecordingAsBin();
    void openRecording();
    // Opens a .bin (Open, recent files, drag and drop, `gilscope FILE.bin`).
    void openRecordingFile(const QString& path);
    void launchScript();                       // asks askLaunch, then launch()
    void launch(const LaunchRequest& request); // starts and records a program
    void saveSettings() const;
    // Serves an exported profile once and opens the Firefox Profiler on it.
    bool openInProfiler(const QString& path);
    QString profilerAddress() const; // https://profiler.firefox.com unless set
    void setProfilerAddress(const QString& address);
    void showAbout();
    // File › Dump all threads… (Snapshot): every thread of the recorded process, else of the
    // selected one, with frames, source lines and variables, in a window of its own.
    void showSnapshot();
    // Recording › Add marker…: a named instant now, on every track and in the export.
    void addMarker();
    void showProcessPicker(); // the start page; a recording goes on
    void showRecordingView();
    void resetLayout(); // View › Reset layout: first size, track area fitted, strip slim

signals:
    void recordingStarted();
    void attachFailed(const QString& message);
    void attachDiscarded(int pid); // a cancelled attach ended; its session is destroyed
    void recordingEnded();
    void exportFinished(bool ok, const QString& message);
    void binSaved(bool ok, const QString& pathOrMessage);
    void recordingLoaded(bool ok);
    void launchFailed(const QString& message);
    void programExited(const QString& how); // a launched program ended: "exit code 3"

protected:
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // What a Save/Export asked for by the unsaved-recording question goes on to do.
    enum class After { Nothing, Quit, Record, Open, Launch };

    void buildActions();
    QWidget* buildStartPage();
    QWidget* buildRecordingPage();
    // Gives the track area the height its tracks need, up to half the splitter, unless
    // the user sized it.
    void fitTracks();
    void setRateExpanded(bool expanded);
    void alignRateStrip(); // the strip under the tracks' time axis and plot columns
    void updatePage();
    void tick();
    void onProcessChanged();
    void onSelectionLost(int pid, const QString& why);
    void onAttached(std::shared_ptr<RecordingSession> session);
    void onAttachFailed(int pid, ErrorKind kind, const QString& message);
    void cancelAttach(const QString& why);
    void onRecordingEnded();
    // What a finished job reports; path: the file it wrote or read.
    void onExportFinished(const QString& path, const Status& status);
    void onSaveBinFinished(const QString& path, const Status& status);
    void onLoadFinished(const QString& path, Result<std::shared_ptr<RecordingFile>> loaded);
    void showFileInfo();
    void setStatus(const QString& text);
    void updateActions();
    // Asks before a recording would be lost; true: go ahead now. A Save or Export
    // answer starts that job, and `after` runs once it has succeeded.
    bool settleUnsaved(After after);
    void runAfterSave();
    void loadSettings();
    void fitToScreen();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void rememberFolder(const QString& kind, const QString& path);
    void showError(const QString& title, const QString& text);
    void offerExportChoices(const QString& path);
    void onLaunched(std::shared_ptr<RecordingSession> session, int pid);
    void onLaunchFailed(const QString& message, const QString& exitText);
    void appendOutput(const QString& text);
    void checkProgramExit();
    void showEndStatus(); // the recording's end and the launched program's exit, together
    void askProfilerAddress();

    ProcessPicker* picker_;
    LiveFigures* figures_;
    TimelineWidget* timeline_;
    QLabel* status_;
    QLabel* fileInfo_;
    QTimer* liveTimer_;
    JobRunner* job_; // export, save and load, behind a progress dialog
    AttachJob* attach_;
    QAction* recordAction_ = nullptr;
    QAction* stopAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* saveBinAction_ = nullptr;
    QAction* openAction_ = nullptr;
    RecordOptionsBar* options_ = nullptr;
    RateChart* rateChart_ = nullptr;
    QAction* aboutAction_ = nullptr;
    QAction* launchAction_ = nullptr;
    LaunchJob* launch_ = nullptr;
    QPlainTextEdit* output_ = nullptr;
    QTimer* exitWatch_ = nullptr;
    std::optional<LaunchRequest> pendingLaunch_;
    bool programRunning_ = false; // the launched program has not been seen to end
    QString endStatus_;           // how the recording ended; empty while it runs
    QString endKept_;             // what it kept ("N samples over S s are kept; …")
    bool endTargetExited_ = false;
    int endPid_ = 0;
    QString programExit_; // how the launched program ended ("exit code 3"), once seen
    QString shownEnd_;    // what showEndStatus() put in the status line last
    QMenu* recentMenu_ = nullptr;
    QSplitter* splitter_ = nullptr;
    QStackedWidget* pages_ = nullptr;
    QScrollArea* tracksArea_ = nullptr;
    QAction* pageAction_ = nullptr;
    QAction* resetLayoutAction_ = nullptr;
    QAction* snapshotAction_ = nullptr;
    QAction* markAction_ = nullptr;
    QToolButton* rateToggle_ = nullptr;
    QListWidget* recentList_ = nullptr;
    QLabel* processName_ = nullptr; // in the toolbar: what the recording page shows
    QToolBar* optionsBar_ = nullptr;
    bool tracksSized_ = false; // the user dragged the splitter (or it was restored)
    QSettings* settings_ = nullptr;
    net::ProfileServer* profileServer_ = nullptr;
    QString profilerAddress_;
    QStringList recentFiles_;
    QMap<QString, QString> folders_;
    bool unsaved_ = false;
    After after_ = After::Nothing;
    QString afterPath_;                 // the file to open after the save, for After::Open
    AnalysisPanel* analysis_ = nullptr; // top functions, trees, flame graph (below the tracks)
    CompareBar* compare_ = nullptr;     // File › Compare with… (in the analysis panel)

    // Shared with worker jobs, which keep them alive until they are done.
    std::shared_ptr<RecordingSession> session_;
    std::shared_ptr<RecordingFile> file_;
    QString attachCommandLine_; // of the process being attached to, for the status
    QString recordedName_;      // the script or module recorded, for default file names
    QDateTime recordStarted_;
};

// The after-export question as a message box (MainWindow::askAfterExport's default).
MainWindow::ExportChoice askExportChoiceBox(QWidget* parent, const QString& path);

} // namespace gilscope::ui
