#include "ui/live_figures.h"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>

namespace gilscope::ui {

LiveFigures::LiveFigures(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("liveFigures"));
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(24);
    requested_ = addFigure(tr("Requested rate"), QStringLiteral("requestedRate"), 0);
    achieved_ = addFigure(tr("Achieved rate"), QStringLiteral("achievedRate"), 1);
    missed_ = addFigure(tr("Missed"), QStringLiteral("missedPct"), 2);
    errors_ = addFigure(tr("Errors"), QStringLiteral("errorPct"), 3);
    samples_ = addFigure(tr("Samples"), QStringLiteral("sampleCount"), 4);
    elapsed_ = addFigure(tr("Elapsed"), QStringLiteral("elapsed"), 5);
    grid->setColumnStretch(6, 1);
    clear();
}

QLabel* LiveFigures::addFigure(const QString& name, const QString& objectName, int column) {
    auto* grid = static_cast<QGridLayout*>(layout());
    auto* caption = new QLabel(name, this);
    caption->setForegroundRole(QPalette::PlaceholderText);
    auto* value = new QLabel(this);
    value->setObjectName(objectName);
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    value->setFont(big);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(caption, 0, column);
    grid->addWidget(value, 1, column);
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
    errors_->setText(tr("%1 %").arg(s.errorPct, 0, 'f', 1));
    samples_->setText(QLocale().toString(qulonglong(s.samples)));
    samples_->setToolTip(
        tr("%1 thread stacks").arg(QLocale().toString(qulonglong(s.threadSamples))));
    elapsed_->setText(tr("%1 s").arg(s.elapsedSec, 0, 'f', 1));
}

void LiveFigures::clear() {
    stats_ = {};
    for (QLabel* l : {requested_, achieved_, missed_, errors_, samples_, elapsed_})
        l->setText(QStringLiteral("–"));
}

} // namespace gilscope::ui
