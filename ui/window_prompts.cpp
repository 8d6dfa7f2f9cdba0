#include "ui/window_prompts.h"

#include "ui/launch_dialog.h"
#include "ui/window_dialogs.h"

#include <QDesktopServices>
#include <QFileDialog>
#include <QInputDialog>
#include <QMessageBox>
#include <QPushButton>

namespace gilscope::ui {

WindowPrompts dialogPrompts(QWidget* parent, QSettings* settings,
                            std::function<QString()> openFolder) {
    WindowPrompts p;
    p.askSavePath = [parent](const QString& title, const QString& suggestedName,
                             const QString& filter) {
        return QFileDialog::getSaveFileName(parent, title, suggestedName, filter);
    };
    p.askOpenPath = [parent, openFolder = std::move(openFolder)] {
        return QFileDialog::getOpenFileName(
            parent, QObject::tr("Open recording"), openFolder(),
            QObject::tr("CPython sampling recordings (*.bin);;All files (*)"));
    };
    p.showMessage = [parent](MessageKind kind, const QString& title, const QString& text) {
        showMessageBox(parent, kind == MessageKind::Error, title, text);
    };
    p.askUnsaved = [parent](const QString& text, bool canSaveBin) {
        return askUnsavedChoice(parent, text, canSaveBin);
    };
    p.askAfterExport = [parent](const QString& path) { return askExportChoiceBox(parent, path); };
    p.openUrl = [](const QUrl& url) { return QDesktopServices::openUrl(url); };
    p.askLaunch = [parent, settings]() -> std::optional<LaunchRequest> {
        LaunchDialog dialog(parent);
        if (settings) dialog.load(*settings);
        if (dialog.exec() != QDialog::Accepted) return std::nullopt;
        if (settings) dialog.save(*settings);
        return dialog.request();
    };
    p.askMarkText = [parent] {
        return QInputDialog::getText(parent, QObject::tr("Add marker"),
                                     QObject::tr("What happens now:"))
            .simplified();
    };
    return p;
}

ExportChoice askExportChoiceBox(QWidget* parent, const QString& path) {
    QMessageBox box(QMessageBox::Information, QObject::tr("Export finished"),
                    QObject::tr("Saved %1.").arg(path), QMessageBox::NoButton, parent);
    box.setInformativeText(QObject::tr(
        "Open it in the Firefox Profiler now, or later drop the file on the profiler's page."));
    QPushButton* open =
        box.addButton(QObject::tr("Open in Firefox Profiler"), QMessageBox::AcceptRole);
    QPushButton* folder = box.addButton(QObject::tr("Show in folder"), QMessageBox::ActionRole);
    QPushButton* copy = box.addButton(QObject::tr("Copy path"), QMessageBox::ActionRole);
    QPushButton* close = box.addButton(QMessageBox::Close);
    box.setDefaultButton(open);
    box.setEscapeButton(close);
    box.exec();
    if (box.clickedButton() == open) return ExportChoice::OpenInProfiler;
    if (box.clickedButton() == folder) return ExportChoice::ShowInFolder;
    if (box.clickedButton() == copy) return ExportChoice::CopyPath;
    return ExportChoice::Close;
}

} // namespace gilscope::ui
