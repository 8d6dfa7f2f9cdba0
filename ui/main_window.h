#pragma once

#include "ui/launch_job.h"
#include "ui/window_actions.h"
#include "ui/window_prompts.h"

#include <QMainWindow>
#include <QStringList>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QScrollArea;
class QSettings;
class QSplitter;
class QStackedWidget;
class QToolBar;
class QToolButton;

namespace gilscope::net {
class ProfileServer;
} // namespace gilscope::net

namespace gilscope::ui {

class AnalysisPanel;
class CompareBar;
class FileFlow;
class LiveFigures;
class ProcessPicker;
class RateChart;
class RecentFiles;
class RecordingController;
class RecordingPage;
class RecordOptionsBar;
class StartPage;
class TimelineWidget;

// The gilscope window: pick a Python process, record it (live figures and per-thread
// GIL/CPU/GC timelines while it runs), export to the Firefox Profiler or save it as a
// CPython `.bin`, or open a `.bin` recording and export that.
// It owns the actions and switches between two pages: the StartPage (the process table,
// Launch script…, Open recording…, recent files) and, once something is recorded or
// opened, the RecordingPage. The RecordingController attaches, launches and stops; the
// FileFlow exports, saves and opens. The window only wires them together.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // settings: where choices are remembered between runs (rate and options, geometry,
    // folders, filter, recent files); none when null (tests).
    explicit MainWindow(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    using MessageKind = ::gilscope::ui::MessageKind;
    using UnsavedChoice = ::gilscope::ui::UnsavedChoice;
    using ExportChoice = ::gilscope::ui::ExportChoice;
    // The questions and message boxes, replaceable so tests drive the window without
    // modal dialogs.
    WindowPrompts& prompts() { return prompts_; }

    RecordingController* controller() const { return controller_; }
    FileFlow* files() const { return files_; }
    StartPage* startPage() const { return startPage_; }
    RecordingPage* recordingPage() const { return recordingPage_; }
    const WindowActions& actions() const { return actions_; }

    ProcessPicker* picker() const;
    LiveFigures* figures() const;
    TimelineWidget* timeline() const;
    RateChart* rateChart() const;
    net::ProfileServer* profileServer() const;
    AnalysisPanel* analysis() const;
    CompareBar* compare() const;
    QAction* recordAction() const { return actions_.record; }
    QAction* stopAction() const { return actions_.stop; }
    QAction* exportAction() const { return actions_.exportProfile; }
    QAction* saveBinAction() const { return actions_.saveBin; }
    QAction* openAction() const { return actions_.open; }
    QAction* launchAction() const { return actions_.launch; }
    QAction* pageAction() const { return actions_.page; }
    QAction* resetLayoutAction() const { return actions_.resetLayout; }
    QAction* snapshotAction() const { return actions_.snapshot; }
    QAction* markAction() const { return actions_.mark; }
    QPlainTextEdit* outputPane() const;
    QMenu* recentMenu() const { return recentMenu_; }
    // Thread tracks above, analysis views (and a launched program's output) below.
    QSplitter* splitter() const;
    QScrollArea* tracksArea() const;
    QToolButton* rateToggle() const;
    QStackedWidget* pages() const { return pages_; }
    bool showingRecording() const; // the recording page, not the start page
    // The window's first size on a screen with this much room (90 %, at most 1600x1000).
    static QSize defaultSize(QSize available);
    QStringList recentFiles() const;
    // The folder the next file dialog starts in, per kind ("export", "save", "open").
    QString lastFolder(const QString& kind) const;
    // Has a finished recording that was neither exported nor saved.
    bool hasUnsavedRecording() const;
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
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void connectActions();
    void buildToolbars();
    void buildMenus();
    void connectParts();
    void updatePage();
    void updateActions();
    void onProcessChanged();
    void onSelectionLost(int pid, const QString& why);
    void onRecordingStarted();
    void onRecordingEnded();
    void onFileTracksReady();
    void onFileLoaded(bool ok);
    void setStatus(const QString& text);
    // The recording's end and a launched program's exit; once the window has moved on
    // (an export, a save), a late word goes to the status bar instead.
    void showEndStatus(const QString& text);
    void loadSettings();
    void fitToScreen();

    QSettings* settings_;
    WindowPrompts prompts_;
    WindowActions actions_;
    RecentFiles* recent_;
    RecordingController* controller_;
    FileFlow* files_;
    RecordOptionsBar* options_;
    QStackedWidget* pages_;
    StartPage* startPage_;
    RecordingPage* recordingPage_;
    QLabel* status_;
    QString shownEnd_;              // what showEndStatus() put in the status line last
    QLabel* processName_ = nullptr; // in the toolbar: what the recording page shows
    QToolBar* optionsBar_ = nullptr;
    QMenu* recentMenu_ = nullptr;
};

} // namespace gilscope::ui
