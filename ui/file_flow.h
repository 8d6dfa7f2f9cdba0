#pragma once

#include "core/analysis/profile_filter.h"
#include "core/common/error.h"

#include <QMap>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QSettings;
class QWidget;

namespace gilscope {
class RecordingFile;
} // namespace gilscope

namespace gilscope::net {
class ProfileServer;
} // namespace gilscope::net

namespace gilscope::ui {

class JobRunner;
class RecentFiles;
class RecordingController;
struct WindowPrompts;

// Files in and out of the window, each behind the cancellable progress dialog: Export to
// Firefox Profiler (then open it there, show it, or copy its path), Save as .bin, Open
// recording, and the question before an unsaved recording would be lost.
class FileFlow : public QObject {
    Q_OBJECT
public:
    // exportState: the views' state filter, which an export keeps too.
    FileFlow(RecordingController& recording, RecentFiles* recent, const WindowPrompts& prompts,
             std::function<StateFilter()> exportState, QSettings* settings, QWidget* dialogParent);

    bool busy() const; // an export, save or open runs
    // A finished recording that was neither exported nor saved.
    bool unsaved() const { return unsaved_; }
    // The window closes once the save or export the quit asked for has succeeded.
    bool quitPending() const { return quitting_; }
    bool canExport() const;  // a finished session, or an opened file
    bool canSaveBin() const; // a finished session with its .bin copy
    QString saveBinTip() const;

    // The toolbar's state filter applies to the export too; the name and title say so.
    void exportProfile();
    void saveBin();
    void open(const QString& path);
    // Serves an exported profile once and opens the Firefox Profiler on it.
    bool openInProfiler(const QString& path);
    QString profilerAddress() const { return profilerAddress_; }
    void setProfilerAddress(const QString& address);
    void askProfilerAddress();
    net::ProfileServer* profileServer() const { return profileServer_; }

    // Asks before a recording would be lost; true: go ahead now. A Save or Export
    // answer starts that job, and `then` runs once it has succeeded.
    bool settleUnsaved(std::function<void()> then, bool quitting = false);
    void cancel(); // on quit

    // The folder the next file dialog starts in, per kind ("export", "save", "open").
    QString lastFolder(const QString& kind) const;
    void loadSettings(const QSettings& settings);
    void saveSettings(QSettings& settings) const;

signals:
    void statusChanged(const QString& text);
    void notice(const QString& text);
    void exportFinished(bool ok, const QString& pathOrMessage);
    void binSaved(bool ok, const QString& pathOrMessage);
    // While a file opens: its tracks are read (RecordingController::file() is the file,
    // whose analysis model still fills); then loaded(). A file whose read fails is
    // refused before its tracks are shown.
    void tracksReady();
    void loaded(bool ok); // RecordingController::file() is the opened file
    void changed();

private:
    void onExportFinished(const QString& path, const Status& status);
    void onSaveBinFinished(const QString& path, const Status& status);
    void onLoadFinished(const QString& path, Result<std::shared_ptr<RecordingFile>> result);
    void onTracksReady(std::shared_ptr<RecordingFile> file, uint64_t openId);
    void offerExportChoices(const QString& path);
    void rememberFolder(const QString& kind, const QString& path);
    void runThen();
    void dropThen();

    RecordingController& recording_;
    RecentFiles* recent_;
    const WindowPrompts& prompts_;
    std::function<StateFilter()> exportState_;
    QSettings* settings_;
    QWidget* dialogParent_;
    JobRunner* job_;
    net::ProfileServer* profileServer_;
    QString profilerAddress_;
    QMap<QString, QString> folders_;
    bool unsaved_ = false;
    std::function<void()> then_; // after the save or export the unsaved question started
    bool quitting_ = false;
    uint64_t openId_ = 0;      // counts open(): a superseded open's tracks are not shown
    bool tracksShown_ = false; // the file being opened is on screen already
};

} // namespace gilscope::ui
