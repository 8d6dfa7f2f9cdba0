#include "ui/live_figures.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>

namespace gilscope::ui {

LiveFigures::LiveFigures(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("liveFigures"));
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(6);
    requested_ = addFigure(tr("Requested rate"), QStringLiteral("requestedRate"), 0);
    achieved_ = addFigure(tr("Achieved rate"), QStringLiteral("achievedRate"), 1);
    missed_ = addFigure(tr("Missed"), QStringLiteral("missedPct"), 2);
    errors_ = addFigure(tr("Errors"), QStringLiteral("errorPct"), 3);
    // Per thread (one per tick) and in total (every thread's), side by side, so that
    // 8 threads' 80,000 stacks next to 10,000 samples do not look like a contradiction.
    samples_ = addFigure(tr("Samples per thread"), QStringLiteral("sampleCount"), 4);
    threadSamples_ = addFigure(tr("Thread-samples, total"), QStringLiteral("threadSampleCount"), 5);
    elapsed_ = addFigure(tr("Elapsed"), QStringLiteral("elapsed"), 6);
    grid->setColumnStretch(14, 1);
    clear();
}

// One line: each caption with its value after it, so the tracks below keep the room.
QLabel* LiveFigures::addFigure(const QString& name, const QString& objectName, int column) {
    auto* grid = static_cast<QGridLayout*>(layout());
    auto* caption = new QLabel(name, this);
    caption->setForegroundRole(QPalette::PlaceholderText);
    if (column > 0) caption->setContentsMargins(14, 0, 0, 0);
    auto* value = new QLabel(this);
    value->setObjectName(objectName);
    QFont bold = value->font();
    bold.setBold(true);
    value->setFont(bold);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(caption, 0, 2 * column);
    grid->addWidget(value, 0, 2 * column + 1);
    return value;
}

void LiveFigures::setStats(const SamplerStats& s) {
    stats_ = s;
    requested_->setText(tr("%1 Hz").arg(s.requestedRateHz, 0, 'f', 0));
    // Last second (what is happening now) and the whole recording's average.
    achieved_->setText(tr("%1 Hz <span style='font-weight:normal; font-size:small'>(avg %2)</span>")
                           .arg(s.achievedRateLastSecond, 0, 'f', 0)
                           .arg(s.achievedRateOverall, 0, 'f', 0));
    achieved_->setToolTip(tr("Last second: %1 Hz\nWhole recording: %2 Hz\nInterval min/mean/max: "
                             "%3 / %4 / %5 µs")
                              .arg(s.achievedRateLastSecond, 0, 'f', 1)
                              .arg(s.achievedRateOverall, 0, 'f', 1)
                              .arg(s.minIntervalUs, 0, 'f', 0)
                              .arg(s.meanIntervalUs, 0, 'f', 0)
                              .arg(s.maxIntervalUs, 0, 'f', 0));
    missed_->setText(tr("%1 %").arg(s.missedPct, 0, 'f', 1));
    // More than 10 % of the ticks missed: the figures are less trustworthy. Say why.
    const bool late = s.missedPct > kMissedWarningPct;
    missed_->setStyleSheet(late ? QStringLiteral("color: #d1242f") : QString());
    missed_->setToolTip(
        late ? tr("%1 % of the sampling ticks were missed: the sampler thread did not get a "
                  "CPU in time, because the machine is busy or the rate is more than one "
                  "core can keep up with (each sample reads the target's memory).\n\n"
                  "What helps: a lower rate; fewer busy programs; or, from the command line, "
                  "gilscope attach --rt-priority 10 (needs root or CAP_SYS_NICE), which "
                  "runs the sampler real-time.")
                   .arg(s.missedPct, 0, 'f', 1)
             : tr("Ticks the sampler could not take on time"));
    errors_->setText(tr("%1 %").arg(s.errorPct, 0, 'f', 1));
    // Torn reads are read again; more than a few dropped all the same skew the shares.
    const std::string tornWarning = tornReadsWarning(s.torn);
    errors_->setStyleSheet(tornWarning.empty() ? QString() : QStringLiteral("color: #d1242f"));
    const std::string torn = describeTornReads(s.torn);
    errors_->setToolTip(
        tr("Ticks whose read failed (the target's memory could not be read, or every try "
           "tore)") +
        (torn.empty() ? QString() : QStringLiteral("\n\n") + QString::fromStdString(torn) + '.') +
        (tornWarning.empty() ? QString()
                             : QStringLiteral("\n\n") + QString::fromStdString(tornWarning) + '.'));
    samples_->setText(QLocale().toString(qulonglong(s.okTicks)));
    samples_->setToolTip(tr("Sampling ticks read: a thread alive the whole time has one "
                            "sample per tick"));
    threadSamples_->setText(QLocale().toString(qulonglong(s.threadSamples)));
    threadSamples_->setToolTip(tr("Thread stacks recorded, all threads together"));
    elapsed_->setText(tr("%1 s").arg(s.elapsedSec, 0, 'f', 1));
}

bool LiveFigures::missedFlagged() const {
    return !missed_->styleSheet().isEmpty();
}

bool LiveFigures::errorsFlagged() const {
    return !errors_->styleSheet().isEmpty();
}

void LiveFigures::clear() {
    stats_ = {};
    for (QLabel* l : {requested_, achieved_, missed_, errors_, samples_, threadSamples_, elapsed_})
        l->setText(QStringLiteral("–"));
    missed_->setStyleSheet({});
    errors_->setStyleSheet({});
}

} // namespace gilscope::ui
