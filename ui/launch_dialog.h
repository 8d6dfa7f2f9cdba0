#pragma once

#include "ui/launch_job.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;
class QPushButton;
class QSettings;

namespace gilscope::ui {

// A Python interpreter found on this machine, for the Launch dialog's list.
struct FoundInterpreter {
    QString path;
    QString label; // "3.12.1 (pyenv)", "python3.11 (system)", "active venv"
};
// pyenv's versions, the system's python3.X, and the active virtual environment.
QList<FoundInterpreter> findPythonInterpreters();

// "Launch script…": which interpreter runs which script or module, with what arguments,
// working directory and environment additions. Recorded from its first line.
class LaunchDialog : public QDialog {
    Q_OBJECT
public:
    explicit LaunchDialog(QWidget* parent = nullptr);

    LaunchRequest request() const;
    void setRequest(const LaunchRequest& request); // fills the fields (remembered choices)
    QString problem() const;                       // why Launch is not possible yet, or empty

    void load(const QSettings& settings);
    void save(QSettings& settings) const;

    QComboBox* interpreterBox() const { return interpreter_; }

private:
    void browseInterpreter();
    void browseTarget();
    void updateOk();

    QComboBox* interpreter_;
    QRadioButton* script_;
    QRadioButton* module_;
    QLineEdit* target_;
    QLineEdit* arguments_;
    QLineEdit* workDir_;
    QPlainTextEdit* environment_;
    QPushButton* ok_ = nullptr;
};

} // namespace gilscope::ui
