#include "ui/launch_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>
#include <QVersionNumber>

#include <algorithm>

namespace gilscope::ui {

QList<FoundInterpreter> findPythonInterpreters() {
    QList<FoundInterpreter> found;
    auto add = [&found](const QString& path, const QString& label) {
        const QString canonical = QFileInfo(path).canonicalFilePath();
        if (canonical.isEmpty() || !QFileInfo(path).isExecutable()) return;
        for (const auto& f : found)
            if (QFileInfo(f.path).canonicalFilePath() == canonical) return;
        found.append({path, label});
    };
    const QString venv = qEnvironmentVariable("VIRTUAL_ENV");
    if (!venv.isEmpty())
        add(venv + QStringLiteral("/bin/python"),
            QObject::tr("active venv (%1)").arg(QDir(venv).dirName()));
    QString pyenvRoot = qEnvironmentVariable("PYENV_ROOT");
    if (pyenvRoot.isEmpty()) pyenvRoot = QDir::homePath() + QStringLiteral("/.pyenv");
    static const QRegularExpression minorName(QStringLiteral("^python3\\.\\d+$"));
    QDir versions(pyenvRoot + QStringLiteral("/versions"));
    QStringList names = versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    // Newest first: 3.13.0 before 3.9.18.
    std::sort(names.begin(), names.end(), [](const QString& a, const QString& b) {
        return QString::compare(a, b, Qt::CaseInsensitive) != 0 &&
               QVersionNumber::fromString(a) > QVersionNumber::fromString(b);
    });
    for (const QString& v : names)
        add(versions.filePath(v + QStringLiteral("/bin/python3")),
            QObject::tr("%1 (pyenv)").arg(v));
    for (const QString& dir : {QStringLiteral("/usr/local/bin"), QStringLiteral("/usr/bin")}) {
        QStringList pythons = QDir(dir).entryList({QStringLiteral("python3.*")}, QDir::Files);
        pythons = pythons.filter(minorName);
        std::sort(pythons.begin(), pythons.end(), [](const QString& a, const QString& b) {
            return QVersionNumber::fromString(a.mid(6)) > QVersionNumber::fromString(b.mid(6));
        });
        for (const QString& p : pythons)
            add(dir + QLatin1Char('/') + p, QObject::tr("%1 (system)").arg(p));
    }
    add(QStringLiteral("/usr/bin/python3"), QObject::tr("python3 (system)"));
    return found;
}

LaunchDialog::LaunchDialog(QWidget* parent)
    : QDialog(parent), interpreter_(new QComboBox(this)),
      script_(new QRadioButton(tr("&Script"), this)),
      module_(new QRadioButton(tr("&Module (-m)"), this)), target_(new QLineEdit(this)),
      arguments_(new QLineEdit(this)), workDir_(new QLineEdit(this)),
      environment_(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("launchDialog"));
    setWindowTitle(tr("Launch and record a Python program"));

    interpreter_->setObjectName(QStringLiteral("interpreterBox"));
    interpreter_->setEditable(true);
    interpreter_->setInsertPolicy(QComboBox::NoInsert);
    for (const FoundInterpreter& f : findPythonInterpreters())
        interpreter_->addItem(QStringLiteral("%1 — %2").arg(f.label, f.path), f.path);
    auto* browsePython = new QToolButton(this);
    browsePython->setText(tr("Browse…"));
    connect(browsePython, &QToolButton::clicked, this, &LaunchDialog::browseInterpreter);
    auto* pythonRow = new QHBoxLayout;
    pythonRow->addWidget(interpreter_, 1);
    pythonRow->addWidget(browsePython);

    script_->setChecked(true);
    auto* kindRow = new QHBoxLayout;
    kindRow->addWidget(script_);
    kindRow->addWidget(module_);
    kindRow->addStretch(1);
    target_->setObjectName(QStringLiteral("targetEdit"));
    target_->setPlaceholderText(tr("path/to/app.py, or a module such as http.server"));
    auto* browseScript = new QToolButton(this);
    browseScript->setText(tr("Browse…"));
    connect(browseScript, &QToolButton::clicked, this, &LaunchDialog::browseTarget);
    auto* targetRow = new QHBoxLayout;
    targetRow->addWidget(target_, 1);
    targetRow->addWidget(browseScript);

    arguments_->setObjectName(QStringLiteral("argumentsEdit"));
    arguments_->setPlaceholderText(tr("as on a shell command line: --port 8000 \"two words\""));
    workDir_->setObjectName(QStringLiteral("workDirEdit"));
    workDir_->setPlaceholderText(QDir::currentPath());
    auto* browseDir = new QToolButton(this);
    browseDir->setText(tr("Browse…"));
    connect(browseDir, &QToolButton::clicked, this, [this] {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Working directory"), workDir_->text());
        if (!dir.isEmpty()) workDir_->setText(dir);
    });
    auto* dirRow = new QHBoxLayout;
    dirRow->addWidget(workDir_, 1);
    dirRow->addWidget(browseDir);
    environment_->setObjectName(QStringLiteral("environmentEdit"));
    environment_->setPlaceholderText(tr("NAME=value, one a line"));
    environment_->setTabChangesFocus(true);
    environment_->setFixedHeight(environment_->fontMetrics().lineSpacing() * 4 + 12);

    // Rows whose field is a layout get their label's buddy by hand (QFormLayout only
    // does it for a widget), so the Alt shortcuts work and no '&' shows.
    auto label = [this](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, this);
        l->setBuddy(buddy);
        return l;
    };
    auto* form = new QFormLayout;
    form->addRow(label(tr("&Interpreter"), interpreter_), pythonRow);
    form->addRow(tr("Run"), kindRow);
    form->addRow(label(tr("&Target"), target_), targetRow);
    form->addRow(tr("&Arguments"), arguments_);
    form->addRow(label(tr("&Working directory"), workDir_), dirRow);
    form->addRow(tr("&Environment"), environment_);
    auto* note = new QLabel(tr("gilscope records the program from its first line: its start-up "
                               "is held until sampling has begun (as gilscope run does). Its "
                               "output appears in the window."),
                            this);
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    ok_ = buttons->addButton(tr("&Launch and record"), QDialogButtonBox::AcceptRole);
    ok_->setObjectName(QStringLiteral("launchButton"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(buttons);
    for (QLineEdit* e : {target_, workDir_})
        connect(e, &QLineEdit::textChanged, this, &LaunchDialog::updateOk);
    connect(interpreter_, &QComboBox::currentTextChanged, this, &LaunchDialog::updateOk);
    connect(module_, &QRadioButton::toggled, this, &LaunchDialog::updateOk);
    setMinimumWidth(qMin(640, fontMetrics().averageCharWidth() * 80));
    updateOk();
}

LaunchRequest LaunchDialog::request() const {
    LaunchRequest r;
    const int index = interpreter_->findText(interpreter_->currentText());
    r.interpreter = index >= 0 ? interpreter_->itemData(index).toString()
                               : interpreter_->currentText().trimmed();
    r.module = module_->isChecked();
    r.target = target_->text().trimmed();
    r.arguments = QProcess::splitCommand(arguments_->text());
    r.workDir = workDir_->text().trimmed();
    for (const QString& line : environment_->toPlainText().split(QLatin1Char('\n')))
        if (line.contains(QLatin1Char('='))) r.environment << line.trimmed();
    return r;
}

void LaunchDialog::setRequest(const LaunchRequest& r) {
    const int index = interpreter_->findData(r.interpreter);
    if (index >= 0)
        interpreter_->setCurrentIndex(index);
    else if (!r.interpreter.isEmpty())
        interpreter_->setEditText(r.interpreter);
    (r.module ? module_ : script_)->setChecked(true);
    target_->setText(r.target);
    QStringList quoted;
    for (const QString& a : r.arguments)
        quoted << (a.contains(QRegularExpression(QStringLiteral("[\\s\"']")))
                       ? QLatin1Char('"') +
                             QString(a).replace(QLatin1Char('"'), QStringLiteral("\\\"")) +
                             QLatin1Char('"')
                       : a);
    arguments_->setText(quoted.join(QLatin1Char(' ')));
    workDir_->setText(r.workDir);
    environment_->setPlainText(r.environment.join(QLatin1Char('\n')));
}

QString LaunchDialog::problem() const {
    const LaunchRequest r = request();
    if (r.interpreter.isEmpty() || !QFileInfo(r.interpreter).isExecutable())
        return tr("Pick a Python interpreter.");
    if (r.target.isEmpty()) return r.module ? tr("Name a module.") : tr("Pick a script.");
    const QString base = r.workDir.isEmpty() ? QDir::currentPath() : r.workDir;
    if (!r.module && !QFileInfo(QDir(base), r.target).isFile())
        return tr("There is no script %1.").arg(r.target);
    if (!r.workDir.isEmpty() && !QFileInfo(r.workDir).isDir())
        return tr("There is no folder %1.").arg(r.workDir);
    return {};
}

void LaunchDialog::updateOk() {
    const QString why = problem();
    ok_->setEnabled(why.isEmpty());
    ok_->setToolTip(why);
}

void LaunchDialog::browseInterpreter() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Python interpreter"), QStringLiteral("/usr/bin"));
    if (path.isEmpty()) return;
    interpreter_->addItem(QStringLiteral("%1 — %2").arg(QFileInfo(path).fileName(), path), path);
    interpreter_->setCurrentIndex(interpreter_->count() - 1);
}

void LaunchDialog::browseTarget() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Python script"), workDir_->text(),
                                                      tr("Python scripts (*.py);;All files (*)"));
    if (path.isEmpty()) return;
    script_->setChecked(true);
    target_->setText(path);
}

void LaunchDialog::load(const QSettings& s) {
    LaunchRequest r;
    r.interpreter = s.value(QStringLiteral("launch/interpreter")).toString();
    r.module = s.value(QStringLiteral("launch/module"), false).toBool();
    r.target = s.value(QStringLiteral("launch/target")).toString();
    r.arguments = s.value(QStringLiteral("launch/arguments")).toStringList();
    r.workDir = s.value(QStringLiteral("launch/workDir")).toString();
    r.environment = s.value(QStringLiteral("launch/environment")).toStringList();
    setRequest(r);
}

void LaunchDialog::save(QSettings& s) const {
    const LaunchRequest r = request();
    s.setValue(QStringLiteral("launch/interpreter"), r.interpreter);
    s.setValue(QStringLiteral("launch/module"), r.module);
    s.setValue(QStringLiteral("launch/target"), r.target);
    s.setValue(QStringLiteral("launch/arguments"), r.arguments);
    s.setValue(QStringLiteral("launch/workDir"), r.workDir);
    s.setValue(QStringLiteral("launch/environment"), r.environment);
}

} // namespace gilscope::ui
