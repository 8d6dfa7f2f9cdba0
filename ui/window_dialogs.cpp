#include "ui/window_dialogs.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpacerItem>

namespace gilscope::ui {

namespace {

// QMessageBox sizes itself to its text, and a window manager cuts a title that is wider
// than the box. A spacer as wide as the title (plus the title bar's buttons) keeps it.
void fitTitle(QMessageBox& box, const QString& title) {
    const int width = box.fontMetrics().horizontalAdvance(title) + 160;
    auto* grid = qobject_cast<QGridLayout*>(box.layout());
    if (!grid) return;
    grid->addItem(new QSpacerItem(width, 0, QSizePolicy::Minimum, QSizePolicy::Expanding),
                  grid->rowCount(), 0, 1, grid->columnCount());
}

} // namespace

void showMessageBox(QWidget* parent, bool error, const QString& title, const QString& text) {
    QMessageBox box(error ? QMessageBox::Warning : QMessageBox::Information, title, text,
                    QMessageBox::Ok, parent);
    box.setTextInteractionFlags(Qt::TextSelectableByMouse);
    fitTitle(box, title);
    box.exec();
}

UnsavedChoice askUnsavedChoice(QWidget* parent, const QString& text, bool canSaveBin) {
    const QString title = QMessageBox::tr("Keep this recording?");
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::NoButton, parent);
    QPushButton* save = nullptr;
    if (canSaveBin) save = box.addButton(QMessageBox::tr("Save as .bin…"), QMessageBox::AcceptRole);
    QPushButton* exportButton = box.addButton(QMessageBox::tr("Export…"), QMessageBox::AcceptRole);
    QPushButton* discard = box.addButton(QMessageBox::Discard);
    QPushButton* cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(save ? save : exportButton);
    box.setEscapeButton(cancel);
    fitTitle(box, title);
    box.exec();
    if (save && box.clickedButton() == save) return UnsavedChoice::SaveBin;
    if (box.clickedButton() == exportButton) return UnsavedChoice::Export;
    if (box.clickedButton() == discard) return UnsavedChoice::Discard;
    return UnsavedChoice::Cancel;
}

QString adviceForWindow(ErrorKind kind, const QString& message) {
    QString text = message;
    // "...; check the pid with 'gilscope ps'", "; pick a Python pid from 'gilscope ps'",
    // "; list Python processes with 'gilscope ps'": command-line advice.
    static const QRegularExpression cliAdvice(QStringLiteral(";[^;]*'gilscope ps'\\.?$"));
    text.remove(cliAdvice);
    switch (kind) {
    case ErrorKind::ProcessNotFound:
    case ErrorKind::ProcessEnded:
        return text + QMessageBox::tr(".\n\nThe process has exited. Pick another process.");
    case ErrorKind::NotPython:
    case ErrorKind::UnsupportedVersion:
        return text + QMessageBox::tr(".\n\nPick another process.");
    default:
        return text;
    }
}

QString scriptNameOf(const QString& commandLine) {
    const QStringList words = commandLine.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString name;
    for (int i = 1; i < words.size() && name.isEmpty(); ++i) {
        if (words[i] == QLatin1String("-m") && i + 1 < words.size())
            name = words[i + 1];
        else if (words[i] == QLatin1String("-c"))
            name = QStringLiteral("command");
        else if (!words[i].startsWith(QLatin1Char('-')))
            name = QFileInfo(words[i]).completeBaseName();
    }
    if (name.isEmpty() && !words.isEmpty()) name = QFileInfo(words.first()).fileName();
    // Only characters that are safe in a file name everywhere.
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]+"));
    name.replace(unsafe, QStringLiteral("_"));
    return name.isEmpty() ? QStringLiteral("python") : name;
}

} // namespace gilscope::ui
