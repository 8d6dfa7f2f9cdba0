// Export to the Firefox Profiler: a file name that says what was recorded, in the
// last folder used; afterwards Open in Firefox Profiler (served once from 127.0.0.1,
// see net/profile_server.h), Show in folder, or Copy path.
#include "ui/main_window.h"

#include "core/session/recording_file.h"
#include "core/session/recording_session.h"
#include "net/profile_server.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/job_runner.h"
#include "ui/show_in_folder.h"

#include <QAction>
#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>

namespace gilscope::ui {

void MainWindow::exportProfile() {
    if (!exportAction_->isEnabled()) return;
    // The toolbar's state filter applies to the export too; the name and title say so.
    const StateFilter state = analysis_->controller()->state();
    const QString stateName =
        QString::fromUtf8(stateFilterName(state).data(), int(stateFilterName(state).size()));
    const QString suffix = state == StateFilter::All ? QString() : QLatin1Char('_') + stateName;
    // What was recorded and when: {script}_{pid}_{yyyymmdd-hhmmss}.json, or the file's name.
    const QString name =
        session_ ? QStringLiteral("%1_%2_%3%4.json")
                       .arg(recordedName_)
                       .arg(session_->pid())
                       .arg(recordStarted_.toString(QStringLiteral("yyyyMMdd-HHmmss")), suffix)
                 : QFileInfo(QString::fromStdString(file_->path().string())).completeBaseName() +
                       suffix + QStringLiteral(".json");
    const QString title = state == StateFilter::All
                              ? tr("Export to Firefox Profiler")
                              : tr("Export to Firefox Profiler: only “%1” samples")
                                    .arg(QString::fromUtf8(stateFilterLabel(state).data(),
                                                           int(stateFilterLabel(state).size())));
    QString path = askSavePath(title, QDir(lastFolder(QStringLiteral("export"))).filePath(name),
                               tr("Firefox Profiler JSON (*.json)"));
    if (path.isEmpty()) return;
    rememberFolder(QStringLiteral("export"), path);
    if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".json");
    const std::filesystem::path dest = path.toStdString();
    JobRunner::Work<void> work;
    if (session_ && session_->canExport()) {
        work = [session = session_, dest, state](const ProgressCallback& p, const CancelToken* c) {
            return session->exportTo(dest, p, c, state);
        };
    } else if (file_ && file_->loaded()) {
        work = [file = file_, dest, state](const ProgressCallback& p, const CancelToken* c) {
            return file->exportTo(dest, p, c, state);
        };
    } else {
        return;
    }
    job_->start<void>(tr("Exporting to %1…").arg(QFileInfo(path).fileName()), std::move(work),
                      [this, path](Status status) { onExportFinished(path, status); });
    updateActions();
}

void MainWindow::onExportFinished(const QString& path, const Status& status) {
    const bool ok = status.ok();
    const QString message = ok ? QString() : QString::fromStdString(status.error().message);
    if (ok) {
        setStatus(tr("Exported to %1").arg(path));
        if (session_) unsaved_ = false;
    } else {
        after_ = After::Nothing;
        const QString again = session_ && !session_->canExport()
                                  ? tr(" This recording cannot be exported again; "
                                       "record the process anew.")
                                  : QString();
        if (status.error().kind == ErrorKind::Cancelled) {
            setStatus(tr("Export cancelled; %1 was not written.").arg(path) + again);
        } else {
            setStatus(tr("Export failed: %1").arg(message) + again);
            showMessage(MessageKind::Error, tr("Export failed"),
                        tr("Cannot write %1: %2").arg(path, message) + again);
        }
    }
    updateActions();
    emit exportFinished(ok, ok ? path : message);
    if (!ok) return;
    if (after_ != After::Nothing) {
        runAfterSave(); // exported because of a quit or a new recording: go on with that
        return;
    }
    offerExportChoices(path);
}

void MainWindow::offerExportChoices(const QString& path) {
    switch (askAfterExport(path)) {
    case ExportChoice::OpenInProfiler:
        openInProfiler(path);
        break;
    case ExportChoice::ShowInFolder:
        // The file manager selects the file; without one answering, its folder opens.
        showInFolder(path, this, openUrl);
        break;
    case ExportChoice::CopyPath:
        QGuiApplication::clipboard()->setText(QFileInfo(path).absoluteFilePath());
        statusBar()->showMessage(tr("Copied %1").arg(QFileInfo(path).absoluteFilePath()), 10000);
        break;
    case ExportChoice::Close:
        break;
    }
}

bool MainWindow::openInProfiler(const QString& path) {
    QString error;
    const QUrl profiler(profilerAddress());
    if (!profileServer_->start(path, profiler, &error)) {
        showMessage(MessageKind::Error, tr("Cannot open the Firefox Profiler"), error);
        return false;
    }
    setStatus(tr("Handing %1 to the Firefox Profiler at %2: it is served once, to the browser, "
                 "for 5 minutes at most.")
                  .arg(QFileInfo(path).fileName(), profiler.host()));
    if (!openUrl(profileServer_->profilerUrl())) {
        showMessage(MessageKind::Error, tr("Cannot open a web browser"),
                    tr("No web browser could be started. Open this address in one:\n\n%1")
                        .arg(profileServer_->profilerUrl().toString(QUrl::FullyEncoded)));
    }
    return true;
}

QString MainWindow::profilerAddress() const {
    return profilerAddress_;
}

void MainWindow::setProfilerAddress(const QString& address) {
    profilerAddress_ =
        address.trimmed().isEmpty() ? net::ProfileServer::kDefaultProfiler : address.trimmed();
    if (settings_) settings_->setValue(QStringLiteral("export/profilerAddress"), profilerAddress_);
}

void MainWindow::askProfilerAddress() {
    bool ok = false;
    const QString address = QInputDialog::getText(
        this, tr("Firefox Profiler address"),
        tr("Where “Open in Firefox Profiler” sends profiles (a team may host its own):"),
        QLineEdit::Normal, profilerAddress(), &ok);
    if (ok) setProfilerAddress(address);
}

MainWindow::ExportChoice askExportChoiceBox(QWidget* parent, const QString& path) {
    QMessageBox box(QMessageBox::Information, MainWindow::tr("Export finished"),
                    MainWindow::tr("Saved %1.").arg(path), QMessageBox::NoButton, parent);
    box.setInformativeText(MainWindow::tr(
        "Open it in the Firefox Profiler now, or later drop the file on the profiler's page."));
    QPushButton* open =
        box.addButton(MainWindow::tr("Open in Firefox Profiler"), QMessageBox::AcceptRole);
    QPushButton* folder = box.addButton(MainWindow::tr("Show in folder"), QMessageBox::ActionRole);
    QPushButton* copy = box.addButton(MainWindow::tr("Copy path"), QMessageBox::ActionRole);
    QPushButton* close = box.addButton(QMessageBox::Close);
    box.setDefaultButton(open);
    box.setEscapeButton(close);
    box.exec();
    if (box.clickedButton() == open) return MainWindow::ExportChoice::OpenInProfiler;
    if (box.clickedButton() == folder) return MainWindow::ExportChoice::ShowInFolder;
    if (box.clickedButton() == copy) return MainWindow::ExportChoice::CopyPath;
    return MainWindow::ExportChoice::Close;
}

} // namespace gilscope::ui
