#include "ui/rate_chart.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>

namespace gilscope::ui {

namespace {

QLineSeries* addSeries(QChart* chart, const QString& name, QColor color, Qt::PenStyle style) {
    auto* s = new QLineSeries(chart);
    s->setName(name);
    QPen pen(color);
    pen.setWidthF(1.6);
    pen.setStyle(style);
    s->setPen(pen);
    chart->addSeries(s);
    return s;
}

} // namespace

RateChart::RateChart(QWidget* parent) : QChartView(parent) {
    setObjectName(QStringLiteral("rateChart"));
    auto* chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setBackgroundRoundness(0);
    requested_ = addSeries(chart, tr("requested /s"), QColor(110, 118, 129), Qt::DashLine);
    achieved_ = addSeries(chart, tr("achieved /s"), QColor(9, 105, 218), Qt::SolidLine);
    missed_ = addSeries(chart, tr("missed %"), QColor(209, 36, 47), Qt::SolidLine);
    errors_ = addSeries(chart, tr("errors %"), QColor(191, 135, 0), Qt::SolidLine);
    time_ = new QValueAxis(chart);
    time_->setLabelFormat(QStringLiteral("%.0f"));

    rate_ = new QValueAxis(chart);
    rate_->setLabelFormat(QStringLiteral("%.0f"));

    percent_ = new QValueAxis(chart);
    percent_->setLabelFormat(QStringLiteral("%.0f %%"));
    chart->addAxis(time_, Qt::AlignBottom);
    chart->addAxis(rate_, Qt::AlignLeft);
    chart->addAxis(percent_, Qt::AlignRight);
    for (QLineSeries* s : {requested_, achieved_, missed_, errors_}) {
        s->attachAxis(time_);
        s->attachAxis(s == missed_ || s == errors_ ? percent_ : rate_);
        s->setUseOpenGL(false);
    }
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    for (QValueAxis* a : {time_, rate_, percent_}) {
        a->setLabelsFont(small);
        a->setTitleFont(small);
    }
    // Few ticks: the chart is short, and crowded labels turn into "…".
    rate_->setTickCount(3);
    percent_->setTickCount(3);
    time_->setTickCount(6);
    chart->legend()->setFont(small);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(fontMetrics().height() * 7); // small screens; sizeHint asks for more
    clear();
}

void RateChart::setCompact(bool compact) {
    compact_ = compact;
    chart()->legend()->setVisible(!compact);
    chart()->setMargins(compact ? QMargins(0, 0, 0, 0) : QMargins(4, 4, 4, 4));
    time_->setLabelsVisible(!compact);
    time_->setTitleVisible(!compact);
    rate_->setTickCount(compact ? 2 : 3);
    percent_->setTickCount(compact ? 2 : 3);
    setMinimumHeight(compact ? 0 : fontMetrics().height() * 7);
    setToolTip(compact ? tr("Requested and achieved samples per second (left), missed and "
                            "error % (right); ▸ Rate chart shows more")
                       : QString());
}

void RateChart::alignTo(double fromSec, double toSec, int plotLeft, int plotRight) {
    aligned_ = toSec > fromSec && plotRight > plotLeft;
    fromSec_ = fromSec;
    toSec_ = toSec;
    plotLeft_ = plotLeft;
    plotRight_ = plotRight;
    redraw();
}

QRectF RateChart::plotArea() const {
    return chart()->plotArea();
}

double RateChart::axisStartSec() const {
    return time_->min();
}

double RateChart::axisEndSec() const {
    return time_->max();
}

QSize RateChart::sizeHint() const {
    return {600, fontMetrics().height() * 13};
}

void RateChart::clear() {
    history_.clear();
    redraw();
}

void RateChart::addStats(const SamplerStats& stats) {
    history_.add(stats);
    redraw();
}

void RateChart::redraw() {
    const std::vector<RatePoint> points = history_.points();
    const double end = points.empty() ? 0 : points.back().timeSec;
    // Seconds, minutes or hours on the time axis, whichever keeps the labels short.
    const bool aligned = compact_ && aligned_; // seconds, as the tracks count them
    double unit = 1;
    QString unitName = tr("seconds");
    if (aligned) {
    } else if (end > 3 * 3600) {
        unit = 3600;
        unitName = tr("hours");
    } else if (end > 600) {
        unit = 60;
        unitName = tr("minutes");
    }
    QList<QPointF> req, ach, mis, err;
    double maxRate = 10, maxPct = 10;
    for (const RatePoint& p : points) {
        const double x = p.timeSec / unit;
        req.append({x, p.requestedHz});
        ach.append({x, p.achievedHz});
        mis.append({x, p.missedPct});
        err.append({x, p.errorPct});
        maxRate = std::max({maxRate, p.requestedHz, p.achievedHz});
        maxPct = std::max({maxPct, p.missedPct, p.errorPct});
    }
    requested_->replace(req);
    achieved_->replace(ach);
    missed_->replace(mis);
    errors_->replace(err);
    time_->setTitleText(unit == 1 ? QString() : unitName); // seconds go without saying
    time_->setLabelFormat(unit == 1 ? QStringLiteral("%.0f") : QStringLiteral("%.1f"));
    if (aligned) {
        // Under the tracks, column for column: their span, their plot's left and right.
        time_->setLabelFormat(QStringLiteral("%.1f"));
        time_->setTitleText(QString());
        time_->setRange(fromSec_, toSec_);
        chart()->setPlotArea(
            QRectF(plotLeft_, 0, plotRight_ - plotLeft_, std::max(1, height() - 1)));
    } else {
        time_->setRange(0, std::max(end / unit, unit == 1 ? 10.0 : 1.0));
        chart()->setPlotArea(QRectF()); // laid out by the chart again
    }
    rate_->setRange(0, maxRate * 1.1);
    percent_->setRange(0, std::min(100.0, maxPct * 1.1));
}

} // namespace gilscope::ui
