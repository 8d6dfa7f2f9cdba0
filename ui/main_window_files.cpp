#include "ui/main_window.h"

#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "ui/job_runner.h"
#include "ui/live_figures.h"
#include "ui/rate_chart.h"
#include "ui/timeline_widget.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QStatusBar>

#include <algorithm>

namespace gilscope::ui {

void MainWindow::saveRecordingAsBin() {
    if (!saveBinAction_->isEnabled()) return;
    const QString name = QStringLiteral("%1_%2_%3.bin")
                             .arg(recordedName_)
                             .arg(session_->pid())
                             .arg(recordStarted_.toString(QStringLiteral("yyyyMMdd-HHmmss")));
    QString path = askSavePath(tr("Save recording as .bin"),
                               QDir(lastFolder(QStringLiteral("save"))).filePath(name),
                               tr("CPython sampling recordings (*.bin)"));
    if (path.isEmpty()) return;
    rememberFolder(QStringLiteral("save"), path);
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".bin");
    const std::filesystem::path dest = path.toStdString();
    // A long recording's copy is large: copy it behind the progress dialog.
    job_->start<void>(
        tr("Saving %1…").arg(QFileInfo(path).fileName()),
        [session = session_, dest](const ProgressCallback& p, const CancelToken* c) {
            return session->saveBinCopyTo(dest, p, c);
        },
        [this, path](Status status) { onSaveBinFinished(path, status); });
    updateActions();
}

void MainWindow::openRecording() {
    if (recording() || attaching() || job_->running()) return;
    const QString path = askOpenPath();
    if (path.isEmpty()) return;
    openRecordingFile(path);
}

void MainWindow::openRecordingFile(const QString& path) {
    if (attaching() || job_->running()) return;
    if (!settleUnsaved(After::Open)) {
        afterPath_ = path;
        return;
    }
    rememberFolder(QStringLiteral("open"), path);
    const std::filesystem::path source = path.toStdString();
    using FilePtr = std::shared_ptr<RecordingFile>;
    job_->start<FilePtr>(
        tr("Reading %1…").arg(QFileInfo(path).fileName()),
        [source](const ProgressCallback& p, const CancelToken* c) -> Result<FilePtr> {
            auto file = RecordingFile::open(source);
            if (!file) return file.error();
            auto loaded = (*file)->load(p, c);
            if (!loaded) return loaded.error();
            return FilePtr(std::move(file).value());
        },
        [this, path](Result<FilePtr> loaded) { onLoadFinished(path, std::move(loaded)); });
    updateActions();
}

void MainWindow::onSaveBinFinished(const QString& path, const Status& status) {
    const bool ok = status.ok();
    const QString message = ok ? QString() : QString::fromStdString(status.error().message);
    if (ok) {
        setStatus(tr("Saved the recording to %1").arg(path));
        unsaved_ = false;
        addRecentFile(path);
        if (after_ == After::Nothing)
            showMessage(MessageKind::Info, tr("Recording saved"),
                        tr("Saved %1.\n\ngilscope opens it with “Open recording…”; CPython 3.15 "
                           "replays it with “python3.15 -m profiling.sampling replay”.")
                            .arg(path));
    } else if (status.error().kind == ErrorKind::Cancelled) {
        after_ = After::Nothing;
        setStatus(tr("Saving cancelled; nothing was written to %1.").arg(path));
    } else {
        after_ = After::Nothing;
        setStatus(tr("Saving the recording failed: %1").arg(message));
        showMessage(MessageKind::Error, tr("Save failed"),
                    tr("%1\n\nNothing was written to %2; a file already there is unchanged.")
                        .arg(message, path));
    }
    updateActions();
    emit binSaved(ok, ok ? path : message);
    if (ok) runAfterSave();
}

void MainWindow::onLoadFinished(const QString& path,
                                Result<std::shared_ptr<RecordingFile>> loaded) {
    const bool ok = loaded.ok();
    const ErrorKind kind = ok ? ErrorKind::Internal : loaded.error().kind;
    const QString message = ok ? QString() : QString::fromStdString(loaded.error().message);
    if (ok) {
        session_.reset();
        file_ = std::move(loaded).value();
        figures_->clear();
        figures_->hide(); // live figures mean nothing for a file; its info says more
        rateChart_->hide();
        timeline_->clear(); // no selection or expanded track from before
        timeline_->setSnapshot(file_->timeline());
        showFileInfo();
        setWindowTitle(tr("gilscope — %1").arg(QString::fromStdString(file_->path().string())));
        processName_->setText(QFileInfo(path).fileName());
        processName_->setToolTip(path);
        showRecordingView();
        setStatus(tr("Opened %1").arg(QString::fromStdString(file_->path().string())));
        unsaved_ = false;
        addRecentFile(path);
    } else if (kind == ErrorKind::Cancelled) {
        setStatus(tr("Opening %1 was cancelled.").arg(path));
    } else {
        const QString name = QFileInfo(path).fileName();
        QString text;
        if (kind == ErrorKind::CorruptFile)
            text = tr("%1 is damaged or is not a CPython sampling recording.\n\nThe reader "
                      "found: %2\n\n(%3)")
                       .arg(name, message, path);
        else
            text = tr("Cannot open %1: %2").arg(path, message);
        showMessage(MessageKind::Error, tr("Cannot open %1").arg(name), text);
        setStatus(tr("Cannot open %1: %2").arg(path, message));
    }
    updateActions();
    emit recordingLoaded(ok);
}

void MainWindow::showFileInfo() {
    // Label/value pairs in three column pairs, so the timelines keep the room.
    const auto rows = file_->describe();
    constexpr size_t kPairsPerRow = 3;
    QString html = QStringLiteral("<table cellspacing=0 cellpadding=2>");
    for (size_t i = 0; i < rows.size(); i += kPairsPerRow) {
        html += QStringLiteral("<tr>");
        for (size_t j = i; j < std::min(rows.size(), i + kPairsPerRow); ++j)
            html += QStringLiteral("<td><i>%1</i>&nbsp;&nbsp;</td><td>%2&nbsp;&nbsp;&nbsp;&nbsp;"
                                   "&nbsp;&nbsp;</td>")
                        .arg(QString::fromStdString(rows[j].first).toHtmlEscaped(),
                             QString::fromStdString(rows[j].second).toHtmlEscaped());
        html += QStringLiteral("</tr>");
    }
    fileInfo_->setText(html + QStringLiteral("</table>"));
    fileInfo_->show();
}

bool MainWindow::settleUnsaved(After after) {
    const bool live = recording();
    if (!live && !unsaved_) return true;
    const int pid = session_->pid();
    const QString text =
        live ? tr("Process %1 is still being recorded. Stop and keep the recording?").arg(pid)
             : tr("The recording of process %1 was neither saved nor exported. Keep it?").arg(pid);
    // A live recording goes on recording while the question is open; Cancel keeps it.
    const bool canSaveBin = live || saveBinAction_->isEnabled();
    const UnsavedChoice choice = askUnsaved(text, canSaveBin);
    if (choice == UnsavedChoice::Cancel) return false;
    if (live) stop(); // sets unsaved_ and makes the recording exportable
    if (choice == UnsavedChoice::Discard) {
        unsaved_ = false;
        return true;
    }
    after_ = after;
    if (choice == UnsavedChoice::SaveBin && saveBinAction_->isEnabled())
        saveRecordingAsBin();
    else
        exportProfile();
    if (!job_->running()) after_ = After::Nothing; // the user cancelled the file dialog
    return false;
}

void MainWindow::runAfterSave() {
    switch (std::exchange(after_, After::Nothing)) {
    case After::Quit:
        close();
        break;
    case After::Record:
        record();
        break;
    case After::Open:
        openRecordingFile(afterPath_);
        break;
    case After::Launch:
        if (pendingLaunch_) launch(*std::exchange(pendingLaunch_, std::nullopt));
        break;
    case After::Nothing:
        break;
    }
}

namespace {

QString droppedRecording(const QMimeData* mime) {
    if (!mime || !mime->hasUrls()) return {};
    for (const QUrl& url : mime->urls())
        if (url.isLocalFile()) return url.toLocalFile();
    return {};
}

} // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedRecording(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QString path = droppedRecording(event->mimeData());
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    if (recording() || attaching() || job_->running()) {
        statusBar()->showMessage(tr("Stop the recording before opening %1.").arg(path), 10000);
        return;
    }
    openRecordingFile(path);
}

} // namespace gilscope::ui
