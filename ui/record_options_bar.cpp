#include "ui/record_options_bar.h"

#include "core/sampling/rate_parser.h"

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
      gc_(new QCheckBox(tr("&GC frames"), parent)), duration_(new QSpinBox(parent)) {
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

    groups_ = {group(parent, tr("&Rate"), rate_),
               group(parent, {}, threads_),
               group(parent, tr("&Mode"), mode_),
               group(parent, {}, opcodes_),
               group(parent, {}, gc_),
               group(parent, tr("&Duration"), duration_)};
}

void RecordOptionsBar::addTo(QToolBar* toolbar) {
    for (QWidget* g : groups_)
        toolbar->addWidget(g);
}

void RecordOptionsBar::setEnabled(bool enabled) {
    for (QWidget* g : groups_)
        g->setEnabled(enabled);
}

Result<RecordingOptions> RecordOptionsBar::options() const {
    auto interval = parseSamplingRate(rate_->currentText().trimmed().toStdString());
    if (!interval) return interval.error();
    RecordingOptions o;
    o.intervalUs = *interval;
    o.read.allThreads = threads_->currentData().toBool();
    o.read.opcodes = opcodes_->isChecked();
    o.read.gc = gc_->isChecked();
    o.mode = static_cast<ProfilingMode>(mode_->currentData().toInt());
    o.durationSec = duration_->value();
    return o;
}

QString RecordOptionsBar::summary() const {
    QString s = rate_->currentText().trimmed() + QStringLiteral(" · ") +
                threads_->currentText().toLower() + QStringLiteral(" · ") +
                tr("mode %1").arg(mode_->currentText());
    if (opcodes_->isChecked()) s += tr(" · opcodes");
    if (!gc_->isChecked()) s += tr(" · no GC frames");
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
}

void RecordOptionsBar::save(QSettings& s) const {
    s.setValue(QStringLiteral("record/rate"), rate_->currentText());
    s.setValue(QStringLiteral("record/allThreads"), threads_->currentData().toBool());
    s.setValue(QStringLiteral("record/mode"), mode_->currentData().toInt());
    s.setValue(QStringLiteral("record/opcodes"), opcodes_->isChecked());
    s.setValue(QStringLiteral("record/gc"), gc_->isChecked());
    s.setValue(QStringLiteral("record/durationSec"), duration_->value());
}

} // namespace gilscope::ui
