#include "ui/record_options_bar.h"

#include "core/sample/capture_rules.h"
#include "core/sampler/rate_parser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QToolBar>

namespace gilscope::ui {

namespace {

// A toolbar item: an optional caption and its control.
QWidget* group(QWidget* parent, const QString& caption, QWidget* control) {
    auto* box = new QWidget(parent);
    auto* layout = new QHBoxLayout(box);
    layout->setContentsMargins(6, 0, 6, 0);
    if (!caption.isEmpty()) {
        auto* label = new QLabel(caption, box);
        label->setBuddy(control);
        layout->addWidget(label);
    }
    control->setParent(box);
    layout->addWidget(control);
    return box;
}

} // namespace

RecordOptionsBar::RecordOptionsBar(QWidget* parent)
    : QObject(parent), rate_(new QComboBox(parent)), threads_(new QComboBox(parent)),
      mode_(new QComboBox(parent)), opcodes_(new QCheckBox(tr("&Opcodes"), parent)),
      gc_(new QCheckBox(tr("&GC frames"), parent)), duration_(new QSpinBox(parent)),
      native_(new QCheckBox(tr("&Native frames"), parent)),
      nativeStacks_(new QCheckBox(tr("&C stacks"), parent)),
      async_(new QCheckBox(tr("As&ync-aware"), parent)), asyncMode_(new QComboBox(parent)),
      problemLabel_(new QLabel(parent)) {
    rate_->setObjectName(QStringLiteral("rateBox"));
    rate_->setEditable(true); // any rate CPython's -r accepts, e.g. 2.5khz
    rate_->addItems({QStringLiteral("100hz"), QStringLiteral("1khz"), QStringLiteral("5khz"),
                     QStringLiteral("10khz"), QStringLiteral("20khz"), QStringLiteral("50khz")});
    rate_->setCurrentText(QStringLiteral("1khz")); // CPython's default
    rate_->setToolTip(tr("Sampling rate, as python -m profiling.sampling -r takes it "
                         "(1khz, 500, 2.5k)"));

    threads_->setObjectName(QStringLiteral("threadsBox"));
    threads_->addItem(tr("All threads"), true);
    threads_->addItem(tr("Main thread only"), false);
    threads_->setToolTip(tr("Sample every thread (-a) or only the main thread"));

    mode_->setObjectName(QStringLiteral("modeBox"));
    mode_->addItem(tr("all"), int(ProfilingMode::All));
    mode_->addItem(tr("wall"), int(ProfilingMode::Wall));
    mode_->addItem(tr("cpu"), int(ProfilingMode::Cpu));
    mode_->addItem(tr("gil"), int(ProfilingMode::Gil));
    mode_->addItem(tr("exception"), int(ProfilingMode::Exception));
    mode_->setToolTip(tr("Which samples the recording keeps, as CPython's --mode:\n"
                         "all: every sample, with GIL and on-CPU state\n"
                         "wall: every sample, without probing CPU state\n"
                         "cpu: only threads running on a CPU\n"
                         "gil: only threads holding the GIL\n"
                         "exception: only threads handling an exception\n"
                         "The live timelines show every sample whatever the mode."));

    opcodes_->setObjectName(QStringLiteral("opcodesBox"));
    opcodes_->setToolTip(tr("Record the bytecode instruction of each leaf frame (--opcodes)"));
    gc_->setObjectName(QStringLiteral("gcBox"));
    gc_->setChecked(true);
    gc_->setToolTip(tr("Show time in the garbage collector as a <GC> frame"));

    duration_->setObjectName(QStringLiteral("durationBox"));
    duration_->setRange(0, 7 * 24 * 3600);
    duration_->setSuffix(tr(" s"));
    duration_->setSpecialValueText(tr("until stopped"));
    duration_->setToolTip(tr("Stop after this many seconds (-d); 0: until Stop or the "
                             "process exits"));

    native_->setObjectName(QStringLiteral("nativeBox"));
    native_->setToolTip(tr("Show a <native> frame where C code called back into Python "
                           "(--native; Python 3.11 or newer)"));
    nativeStacks_->setObjectName(QStringLiteral("nativeStacksBox"));
    nativeStacks_->setToolTip(tr("Show the C/C++ functions between the Python frames, without "
                                 "stopping the target (--native-stacks; perf events: needs "
                                 "kernel.perf_event_paranoid <= 2 or CAP_PERFMON)"));
    async_->setObjectName(QStringLiteral("asyncBox"));
    async_->setToolTip(tr("Rebuild stacks from asyncio tasks: each coroutine under its task's "
                          "name and the tasks awaiting it (--async-aware; Python 3.14 or newer). "
                          "Ticking it selects what CPython requires with it: wall mode, the "
                          "main thread, GC frames on, native frames off."));
    asyncMode_->setObjectName(QStringLiteral("asyncModeBox"));
    asyncMode_->addItem(tr("running tasks"), int(AsyncMode::Running));
    asyncMode_->addItem(tr("all tasks"), int(AsyncMode::All));
    asyncMode_->setToolTip(tr("--async-mode: the task each thread runs now (running) or every "
                              "task, waiting ones too (all)"));
    problemLabel_->setObjectName(QStringLiteral("recordOptionsProblem"));
    problemLabel_->setWordWrap(true);
    problemLabel_->setStyleSheet(QStringLiteral("color: #b00020"));

    groups_ = {group(parent, tr("&Rate"), rate_),
               group(parent, {}, threads_),
               group(parent, tr("&Mode"), mode_),
               group(parent, {}, opcodes_),
               group(parent, {}, gc_),
               group(parent, {}, native_),
               group(parent, {}, nativeStacks_),
               group(parent, {}, async_),
               group(parent, {}, asyncMode_),
               group(parent, tr("&Duration"), duration_)};
    for (QComboBox* box : {rate_, threads_, mode_, asyncMode_})
        connect(box, &QComboBox::currentTextChanged, this, &RecordOptionsBar::refresh);
    for (QCheckBox* box : {opcodes_, gc_, native_, nativeStacks_, async_})
        connect(box, &QCheckBox::toggled, this, &RecordOptionsBar::refresh);
    connect(duration_, &QSpinBox::valueChanged, this, &RecordOptionsBar::refresh);
    // Ticking Async-aware takes the settings CPython requires with it (wall mode, the main
    // thread, GC frames, no native frames) instead of refusing to record; a conflicting
    // choice made afterwards is named in the problem note.
    connect(async_, &QCheckBox::clicked, this, [this](bool on) {
        if (!on) return;
        mode_->setCurrentIndex(mode_->findData(int(ProfilingMode::Wall)));
        threads_->setCurrentIndex(threads_->findData(false));
        gc_->setChecked(true);
        native_->setChecked(false);
    });
    refresh();
}

void RecordOptionsBar::addTo(QToolBar* toolbar) {
    for (QWidget* g : groups_)
        toolbar->addWidget(g);
}

void RecordOptionsBar::setEnabled(bool enabled) {
    for (QWidget* g : groups_)
        g->setEnabled(enabled);
}

Result<SessionOptions> RecordOptionsBar::options() const {
    auto interval = parseSamplingRate(rate_->currentText().trimmed().toStdString());
    if (!interval) return interval.error();
    SessionOptions o;
    o.intervalUs = *interval;
    o.read.allThreads = threads_->currentData().toBool();
    o.read.opcodes = opcodes_->isChecked();
    o.read.gc = gc_->isChecked();
    o.mode = static_cast<ProfilingMode>(mode_->currentData().toInt());
    o.durationSec = duration_->value();
    o.read.native = native_->isChecked();
    o.read.nativeStacks = nativeStacks_->isChecked();
    if (async_->isChecked())
        o.read.asyncMode = static_cast<AsyncMode>(asyncMode_->currentData().toInt());
    if (QString why = conflictProblem(); !why.isEmpty())
        return makeError(ErrorKind::BadArguments, why.toStdString());
    return o;
}

QString RecordOptionsBar::conflictProblem() const {
    // The GUI's .bin copy is private, so it is no --binary output.
    const CaptureChoice choice{.asyncMode =
                                   async_->isChecked() ? AsyncMode::Running : AsyncMode::Off,
                               .native = native_->isChecked(),
                               .gcFrames = gc_->isChecked(),
                               .binaryOutput = false,
                               .mode = static_cast<ProfilingMode>(mode_->currentData().toInt()),
                               .allThreads = threads_->currentData().toBool()};
    QStringList names;
    for (AsyncConflict c : asyncConflicts(choice)) {
        switch (c) {
        case AsyncConflict::Native:
            names << tr("Native frames");
            break;
        case AsyncConflict::NoGc:
            names << tr("no GC frames");
            break;
        case AsyncConflict::Binary:
            break;
        case AsyncConflict::Mode:
            names << tr("mode %1").arg(mode_->currentText());
            break;
        case AsyncConflict::AllThreads:
            names << tr("All threads");
            break;
        }
    }
    if (async_->isChecked() && nativeStacks_->isChecked()) names << tr("C stacks");
    if (names.isEmpty()) return {};
    return tr("Async-aware cannot be combined with %1: CPython refuses them with "
              "--async-aware, whose stacks are rebuilt from asyncio tasks. Choose mode wall, "
              "Main thread only, GC frames on, Native frames and C stacks off.")
        .arg(names.join(QStringLiteral(", ")));
}

void RecordOptionsBar::setTargetVersion(const QString& version) {
    if (version == targetVersion_) return;
    targetVersion_ = version;
    refresh();
}

QString RecordOptionsBar::versionProblem() const {
    const QStringList parts = targetVersion_.split(QLatin1Char('.'));
    bool ok = false;
    const int minor = parts.size() >= 2 ? parts[1].toInt(&ok) : 0;
    if (!ok || parts[0] != QLatin1String("3")) return {}; // unknown: the attach checks it
    const AsyncMode asyncMode = async_->isChecked() ? AsyncMode::Running : AsyncMode::Off;
    return QString::fromStdString(
        versionRefusal(native_->isChecked(), asyncMode, minor, targetVersion_.toStdString()));
}

QString RecordOptionsBar::problem() const {
    if (QString why = conflictProblem(); !why.isEmpty()) return why;
    return versionProblem();
}

void RecordOptionsBar::refresh() {
    asyncMode_->setEnabled(async_->isChecked());
    const QString why = problem();
    problemLabel_->setText(why);
    problemLabel_->setToolTip(why);
    problemLabel_->setVisible(!why.isEmpty());
    emit changed();
}

QString RecordOptionsBar::summary() const {
    QString s = rate_->currentText().trimmed() + QStringLiteral(" · ") +
                threads_->currentText().toLower() + QStringLiteral(" · ") +
                tr("mode %1").arg(mode_->currentText());
    if (opcodes_->isChecked()) s += tr(" · opcodes");
    if (!gc_->isChecked()) s += tr(" · no GC frames");
    if (native_->isChecked()) s += tr(" · native frames");
    if (nativeStacks_->isChecked()) s += tr(" · C stacks");
    if (async_->isChecked()) s += tr(" · async-aware (%1)").arg(asyncMode_->currentText());
    if (duration_->value() > 0) s += tr(" · %1 s").arg(duration_->value());
    return s;
}

void RecordOptionsBar::load(const QSettings& s) {
    const QString rate = s.value(QStringLiteral("record/rate")).toString();
    if (!rate.isEmpty()) rate_->setCurrentText(rate);
    threads_->setCurrentIndex(s.value(QStringLiteral("record/allThreads"), true).toBool() ? 0 : 1);
    const int mode =
        mode_->findData(s.value(QStringLiteral("record/mode"), int(ProfilingMode::All)));
    if (mode >= 0) mode_->setCurrentIndex(mode);
    opcodes_->setChecked(s.value(QStringLiteral("record/opcodes"), false).toBool());
    gc_->setChecked(s.value(QStringLiteral("record/gc"), true).toBool());
    duration_->setValue(s.value(QStringLiteral("record/durationSec"), 0).toInt());
    native_->setChecked(s.value(QStringLiteral("record/native"), false).toBool());
    nativeStacks_->setChecked(s.value(QStringLiteral("record/nativeStacks"), false).toBool());
    async_->setChecked(s.value(QStringLiteral("record/asyncAware"), false).toBool());
    asyncMode_->setCurrentIndex(
        s.value(QStringLiteral("record/asyncMode")).toString() == QLatin1String("all") ? 1 : 0);
}

void RecordOptionsBar::save(QSettings& s) const {
    s.setValue(QStringLiteral("record/rate"), rate_->currentText());
    s.setValue(QStringLiteral("record/allThreads"), threads_->currentData().toBool());
    s.setValue(QStringLiteral("record/mode"), mode_->currentData().toInt());
    s.setValue(QStringLiteral("record/opcodes"), opcodes_->isChecked());
    s.setValue(QStringLiteral("record/gc"), gc_->isChecked());
    s.setValue(QStringLiteral("record/durationSec"), duration_->value());
    s.setValue(QStringLiteral("record/native"), native_->isChecked());
    s.setValue(QStringLiteral("record/nativeStacks"), nativeStacks_->isChecked());
    s.setValue(QStringLiteral("record/asyncAware"), async_->isChecked());
    s.setValue(QStringLiteral("record/asyncMode"),
               asyncMode_->currentData().toInt() == int(AsyncMode::All)
                   ? QStringLiteral("all")
                   : QStringLiteral("running"));
}

} // namespace gilscope::ui
