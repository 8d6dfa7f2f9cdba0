// Export to the Firefox Profiler: a file name that says what was recorded, in the
// last folder used; afterwards Open in Firefox Profiler (served once from 127.0.0.1,
// see net/profile_server.h), Show in folder, or Copy path. Save as .bin, Open, and the
// unsaved-recording question.
#include "ui/file_flow.h"

#include "core/tach/thread_names_file.h"

#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "net/profile_server.h"
#include "ui/job_runner.h"
#include "ui/recent_files.h"
#include "ui/recording_controller.h"
#include "ui/show_in_folder.h"
#include "ui/window_prompts.h"

#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QPointer>
#include <QSettings>

#include <utility>

namespace gilscope::ui {

namespace {
const QStringList kFolderKinds = {QStringLiteral("export"), QStringLiteral("save"),
                                  QStringLiteral("open")};
const QString kProfilerKey = QStringLiteral("export/profilerAddress");

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), int(s.size()));
}
} // namespace

FileFlow::FileFlow(RecordingController& recording, RecentFiles* recent,
                   const WindowPrompts& prompts, std::function<StateFilter()> exportState,
                   QSettings* settings, QWidget* dialogParent)
    : QObject(dialogParent), recording_(recording), recent_(recent), prompts_(prompts),
      exportState_(std::move(exportState)), settings_(settings), dialogParent_(dialogParent),
      job_(new JobRunner(this, dialogParent)), profileServer_(new net::ProfileServer(this)),
      profilerAddress_(net::ProfileServer::kDefaultProfiler) {
    connect(&recording_, &RecordingController::ended, this,
            [this](const SamplerStats& stats) { unsaved_ = stats.threadSamples > 0; });
}

bool FileFlow::busy() const {
    return job_->running();
}

bool FileFlow::canExport() const {
    const auto& session = recording_.session();
    const auto& file = recording_.file();
    return (session && session->finished() && session->canExport()) || (file && file->loaded());
}

bool FileFlow::canSaveBin() const {
    const auto& session = recording_.session();
    return session && session->finished() && session->hasBinCopy();
}

QString FileFlow::saveBinTip() const {
    const auto& session = recording_.session();
    if (session && session->finished() && !session->hasBinCopy())
        return tr("This recording has no .bin copy: %1")
            .arg(QString::fromStdString(session->binCopyStatus().error().message));
    return tr("Save the recording in CPython's .bin format");
}

void FileFlow::exportProfile() {
    if (busy() || !canExport()) return;
    const StateFilter state = exportState_();
    const auto& session = recording_.session();
    const auto& file = recording_.file();
    const RecordedProcess& process = recording_.process();
    const QString suffix =
        state == StateFilter::All ? QString() : QLatin1Char('_') + text(stateFilterName(state));
    // What was recorded and when: {script}_{pid}_{yyyymmdd-hhmmss}.json, or the file's name.
    const QString name =
        session ? QStringLiteral("%1_%2_%3%4.json")
                      .arg(process.scriptName)
                      .arg(session->pid())
                      .arg(process.started.toString(QStringLiteral("yyyyMMdd-HHmmss")), suffix)
                : QFileInfo(QString::fromStdString(file->path().string())).completeBaseName() +
                      suffix + QStringLiteral(".json");
    const QString title = state == StateFilter::All
                              ? tr("Export to Firefox Profiler")
                              : tr("Export to Firefox Profiler: only “%1” samples")
                                    .arg(text(stateFilterLabel(state)));
    QString path =
        prompts_.askSavePath(title, QDir(lastFolder(QStringLiteral("export"))).filePath(name),
                             tr("Firefox Profiler JSON (*.json)"));
    if (path.isEmpty()) return;
    rememberFolder(QStringLiteral("export"), path);
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
    const std::filesystem::path dest = path.toStdString();
    JobRunner::Work<void> work;
    if (session && session->canExport()) {
        work = [session, dest, state](const ProgressCallback& p, const CancelToken* c) {
            return session->exportTo(dest, p, c, state);
        };
    } else if (file && file->loaded()) {
        work = [file, dest, state](const ProgressCallback& p, const CancelToken* c) {
            return file->exportTo(dest, p, c, state);
        };
    } else {
        return;
    }
    job_->start<void>(tr("Exporting to %1…").arg(QFileInfo(path).fileName()), std::move(work),
                      [this, path](Status status) { onExportFinished(path, status); });
    emit changed();
}

void FileFlow::onExportFinished(const QString& path, const Status& status) {
    const bool ok = status.ok();
    const QString message = ok ? QString() : QString::fromStdString(status.error().message);
    const auto& session = recording_.session();
    if (ok) {
        emit statusChanged(tr("Exported to %1").arg(path));
        if (session) unsaved_ = false;
    } else {
        dropThen();
        const QString again = session && !session->canExport()
                                  ? tr(" This recording cannot be exported again; "
                                       "record the process anew.")
                                  : QString();
        if (status.error().kind == ErrorKind::Cancelled) {
            emit statusChanged(tr("Export cancelled; %1 was not written.").arg(path) + again);
        } else {
            emit statusChanged(tr("Export failed: %1").arg(message) + again);
            prompts_.showMessage(MessageKind::Error, tr("Export failed"),
                                 tr("Cannot write %1: %2").arg(path, message) + again);
        }
    }
    emit changed();
    emit exportFinished(ok, ok ? path : message);
    if (!ok) return;
    if (then_) {
        runThen(); // exported because of a quit or a new recording: go on with that
        return;
    }
    offerExportChoices(path);
}

void FileFlow::offerExportChoices(const QString& path) {
    switch (prompts_.askAfterExport(path)) {
    case ExportChoice::OpenInProfiler:
        openInProfiler(path);
        break;
    case ExportChoice::ShowInFolder:
        // The file manager selects the file; without one answering, its folder opens.
        showInFolder(path, this, prompts_.openUrl);
        break;
    case ExportChoice::CopyPath:
        QGuiApplication::clipboard()->setText(QFileInfo(path).absoluteFilePath());
        emit notice(tr("Copied %1").arg(QFileInfo(path).absoluteFilePath()));
        break;
    case ExportChoice::Close:
        break;
    }
}

bool FileFlow::openInProfiler(const QString& path) {
    QString error;
    const QUrl profiler(profilerAddress_);
    if (!profileServer_->start(path, profiler, &error)) {
        prompts_.showMessage(MessageKind::Error, tr("Cannot open the Firefox Profiler"), error);
        return false;
    }
    emit statusChanged(tr("Handing %1 to the Firefox Profiler at %2: it is served once, to the "
                          "browser, for 5 minutes at most.")
                           .arg(QFileInfo(path).fileName(), profiler.host()));
    if (!prompts_.openUrl(profileServer_->profilerUrl())) {
        prompts_.showMessage(MessageKind::Error, tr("Cannot open a web browser"),
                             tr("No web browser could be started. Open this address in one:\n\n%1")
                                 .arg(profileServer_->profilerUrl().toString(QUrl::FullyEncoded)));
    }
    return true;
}

void FileFlow::setProfilerAddress(const QString& address) {
    profilerAddress_ =
        address.trimmed().isEmpty() ? net::ProfileServer::kDefaultProfiler : address.trimmed();
    if (settings_) settings_->setValue(kProfilerKey, profilerAddress_);
}

void FileFlow::askProfilerAddress() {
    bool ok = false;
    const QString address = QInputDialog::getText(
        dialogParent_, tr("Firefox Profiler address"),
        tr("Where “Open in Firefox Profiler” sends profiles (a team may host its own):"),
        QLineEdit::Normal, profilerAddress_, &ok);
    if (ok) setProfilerAddress(address);
}

void FileFlow::saveBin() {
    const auto& session = recording_.session();
    if (!canSaveBin() || busy()) return;
    const RecordedProcess& process = recording_.process();
    const QString name = QStringLiteral("%1_%2_%3.bin")
                             .arg(process.scriptName)
                             .arg(session->pid())
                             .arg(process.started.toString(QStringLiteral("yyyyMMdd-HHmmss")));
    QString path = prompts_.askSavePath(tr("Save recording as .bin"),
                                        QDir(lastFolder(QStringLiteral("save"))).filePath(name),
                                        tr("CPython sampling recordings (*.bin)"));
    if (path.isEmpty()) return;
    rememberFolder(QStringLiteral("save"), path);
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".bin");
    const std::filesystem::path dest = path.toStdString();
    // A long recording's copy is large: copy it behind the progress dialog.
    job_->start<void>(
        tr("Saving %1…").arg(QFileInfo(path).fileName()),
        [session, dest](const ProgressCallback& p, const CancelToken* c) {
            return session->saveBinCopyTo(dest, p, c);
        },
        [this, path](Status status) { onSaveBinFinished(path, status); });
    emit changed();
}

void FileFlow::onSaveBinFinished(const QString& path, const Status& status) {
    const bool ok = status.ok();
    const QString message = ok ? QString() : QString::fromStdString(status.error().message);
    if (ok) {
        emit statusChanged(tr("Saved the recording to %1").arg(path));
        unsaved_ = false;
        recent_->add(path);
        // The thread names, marks and counters have no place in CPython's format: they go
        // beside it, and are lost if the .bin is moved alone.
        const QString side = QString::fromStdString(threadNamesPath(path.toStdString()).string());
        const QString beside =
            QFileInfo::exists(side)
                ? tr("\n\nThread names, marks and the process's counters are in %1 beside it "
                     "(CPython's format has no place for them): move or copy the two files "
                     "together.")
                      .arg(QFileInfo(side).fileName())
                : QString();
        if (!then_)
            prompts_.showMessage(
                MessageKind::Info, tr("Recording saved"),
                tr("Saved %1.%2\n\ngilscope opens it with “Open recording…”; CPython 3.15 "
                   "replays it with “python3.15 -m profiling.sampling replay”.")
                    .arg(path, beside));
    } else if (status.error().kind == ErrorKind::Cancelled) {
        dropThen();
        emit statusChanged(tr("Saving cancelled; nothing was written to %1.").arg(path));
    } else {
        dropThen();
        emit statusChanged(tr("Saving the recording failed: %1").arg(message));
        prompts_.showMessage(
            MessageKind::Error, tr("Save failed"),
            tr("%1\n\nNothing was written to %2; a file already there is unchanged.")
                .arg(message, path));
    }
    emit changed();
    emit binSaved(ok, ok ? path : message);
    if (ok) runThen();
}

void FileFlow::open(const QString& path) {
    rememberFolder(QStringLiteral("open"), path);
    const std::filesystem::path source = path.toStdString();
    using FilePtr = std::shared_ptr<RecordingFile>;
    const uint64_t openId = ++openId_;
    tracksShown_ = false;
    QPointer<FileFlow> self(this);
    job_->start<FilePtr>(
        tr("Reading %1…").arg(QFileInfo(path).fileName()),
        [source, self, openId](const ProgressCallback& p, const CancelToken* c) -> Result<FilePtr> {
            auto opened = RecordingFile::open(source);
            if (!opened) return opened.error();
            FilePtr file(std::move(opened).value());
            // The tracks are drawn as soon as they are read; the model goes on filling.
            auto loaded = file->load(p, c, [self, file, openId] {
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, file, openId] {
                        if (self) self->onTracksReady(file, openId);
                    },
                    Qt::QueuedConnection);
            });
            if (!loaded) return loaded.error();
            return file;
        },
        [this, path](Result<FilePtr> loaded) { onLoadFinished(path, std::move(loaded)); });
    emit changed();
}

void FileFlow::onTracksReady(std::shared_ptr<RecordingFile> file, uint64_t openId) {
    if (openId != openId_ || !job_->running()) return; // superseded, or over already
    tracksShown_ = true;
    recording_.showFile(std::move(file));
    emit tracksReady();
}

void FileFlow::onLoadFinished(const QString& path, Result<std::shared_ptr<RecordingFile>> result) {
    const bool ok = result.ok();
    const ErrorKind kind = ok ? ErrorKind::Internal : result.error().kind;
    const QString message = ok ? QString() : QString::fromStdString(result.error().message);
    if (!ok && tracksShown_) recording_.closeFile(); // cancelled while its model filled
    tracksShown_ = false;
    if (ok) {
        recording_.showFile(std::move(result).value());
        emit statusChanged(
            tr("Opened %1").arg(QString::fromStdString(recording_.file()->path().string())));
        unsaved_ = false;
        recent_->add(path);
    } else if (kind == ErrorKind::Cancelled) {
        emit statusChanged(tr("Opening %1 was cancelled.").arg(path));
    } else {
        const QString name = QFileInfo(path).fileName();
        const QString text =
            kind == ErrorKind::CorruptFile
                ? tr("%1 is damaged or is not a CPython sampling recording.\n\nThe reader "
                     "found: %2\n\n(%3)")
                      .arg(name, message, path)
                : tr("Cannot open %1: %2").arg(path, message);
        prompts_.showMessage(MessageKind::Error, tr("Cannot open %1").arg(name), text);
        emit statusChanged(tr("Cannot open %1: %2").arg(path, message));
    }
    emit changed();
    emit loaded(ok);
}

bool FileFlow::settleUnsaved(std::function<void()> then, bool quitting) {
    const bool live = recording_.recording();
    if (!live && !unsaved_) return true;
    const int pid = recording_.session()->pid();
    const QString question =
        live ? tr("Process %1 is still being recorded. Stop and keep the recording?").arg(pid)
             : tr("The recording of process %1 was neither saved nor exported. Keep it?").arg(pid);
    // A live recording goes on recording while the question is open; Cancel keeps it.
    const UnsavedChoice choice = prompts_.askUnsaved(question, live || canSaveBin());
    if (choice == UnsavedChoice::Cancel) return false;
    if (live) recording_.stop(); // sets unsaved_ and makes the recording exportable
    if (choice == UnsavedChoice::Discard) {
        unsaved_ = false;
        return true;
    }
    then_ = std::move(then);
    quitting_ = quitting;
    if (choice == UnsavedChoice::SaveBin && canSaveBin())
        saveBin();
    else if (canExport())
        exportProfile();
    if (!busy()) dropThen(); // the user cancelled the file dialog
    return false;
}

void FileFlow::runThen() {
    auto then = std::exchange(then_, {});
    quitting_ = false;
    if (then) then();
}

void FileFlow::dropThen() {
    then_ = {};
    quitting_ = false;
}

void FileFlow::cancel() {
    job_->cancel();
}

QString FileFlow::lastFolder(const QString& kind) const {
    // A folder used for anything is a better start than the home folder.
    for (const QString& k : QStringList{kind} + kFolderKinds)
        if (folders_.contains(k) && QFileInfo(folders_[k]).isDir()) return folders_[k];
    return QDir::homePath();
}

void FileFlow::rememberFolder(const QString& kind, const QString& path) {
    folders_[kind] = QFileInfo(path).absolutePath();
}

void FileFlow::loadSettings(const QSettings& settings) {
    for (const QString& kind : kFolderKinds) {
        const QString folder = settings.value(QStringLiteral("folders/") + kind).toString();
        if (!folder.isEmpty()) folders_[kind] = folder;
    }
    const QString profiler = settings.value(kProfilerKey).toString();
    if (!profiler.isEmpty()) profilerAddress_ = profiler;
}

void FileFlow::saveSettings(QSettings& settings) const {
    for (auto it = folders_.begin(); it != folders_.end(); ++it)
        settings.setValue(QStringLiteral("folders/") + it.key(), it.value());
    settings.setValue(kProfilerKey, profilerAddress_);
}

} // namespace gilscope::ui
