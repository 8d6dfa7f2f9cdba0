#include "ui/timeline_widget.h"

#include <QLocale>
#include <QPaintEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gilscope::ui {
namespace {

constexpr int kLabelWidth = 150;
constexpr int kLaneHeight = 12;
constexpr int kLaneGap = 2;
constexpr int kThreadHeaderHeight = 18;
constexpr int kThreadGap = 8;
constexpr int kLegendHeight = 22;
constexpr int kAxisHeight = 20;
constexpr int kMargin = 8;

struct Lane {
    const char* name;
    QColor color;
    uint32_t TimelineBucket::*count;
};

const Lane kLanes[] = {
    {"GIL held", QColor(46, 160, 67), &TimelineBucket::hasGil},
    {"Waiting for GIL", QColor(230, 120, 20), &TimelineBucket::gilRequested},
    {"On CPU", QColor(40, 110, 220), &TimelineBucket::onCpu},
    {"GC", QColor(160, 60, 190), &TimelineBucket::gc},
};
constexpr int kLaneCount = int(std::size(kLanes));
constexpr int kThreadHeight =
    kThreadHeaderHeight + kLaneCount * (kLaneHeight + kLaneGap) + kThreadGap;

// 0.1 s, 0.2 s, 0.5 s, 1 s, ... so that ticks are at least ~80 px apart.
double tickStepSec(double spanSec, int widthPx) {
    const double wanted = spanSec * 80.0 / std::max(widthPx, 1);
    double step = 0.1;
    for (double base = 0.1; base < 1e6; base *= 10) {
        for (double m : {1.0, 2.0, 5.0}) {
            step = base * m;
            if (step >= wanted) return step;
        }
    }
    return step;
}

} // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("timeline"));
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void TimelineWidget::setSnapshot(TimelineSnapshot snapshot) {
    const bool heightChanged = snapshot.threads.size() != snapshot_.threads.size();
    snapshot_ = std::move(snapshot);
    if (heightChanged) updateGeometry();
    update();
}

void TimelineWidget::clear() {
    setSnapshot(TimelineSnapshot{});
}

int TimelineWidget::contentHeight() const {
    const int threads = std::max<int>(1, int(snapshot_.threads.size()));
    return kMargin + kLegendHeight + threads * kThreadHeight + kAxisHeight + kMargin;
}

QSize TimelineWidget::sizeHint() const {
    return {800, contentHeight()};
}
QSize TimelineWidget::minimumSizeHint() const {
    return {400, contentHeight()};
}

uint64_t TimelineWidget::timeAt(int x) const {
    const int plotLeft = kMargin + kLabelWidth;
    const int plotWidth = std::max(10, width() - plotLeft - kMargin);
    const double spanUs =
        std::max<double>(double(snapshot_.spanUs) + double(snapshot_.bucketUs), 1e6);
    const double offset =
        std::clamp(double(x - plotLeft), 0.0, double(plotWidth)) * spanUs / plotWidth;
    return snapshot_.originUs +
           uint64_t(std::min(offset, double(snapshot_.spanUs + snapshot_.bucketUs)));
}

int TimelineWidget::xAt(uint64_t timeUs) const {
    const int plotLeft = kMargin + kLabelWidth;
    const int plotWidth = std::max(10, width() - plotLeft - kMargin);
    const double spanUs =
        std::max<double>(double(snapshot_.spanUs) + double(snapshot_.bucketUs), 1e6);
    const double offset = timeUs > snapshot_.originUs ? double(timeUs - snapshot_.originUs) : 0.0;
    return plotLeft + int(offset * plotWidth / spanUs);
}

void TimelineWidget::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(event->rect(), palette().base());
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = palette().color(QPalette::Mid);
    const int plotLeft = kMargin + kLabelWidth;
    const int plotWidth = std::max(10, width() - plotLeft - kMargin);

    // Legend.
    int x = kMargin;
    const int legendY = kMargin;
    for (const Lane& lane : kLanes) {
        p.fillRect(x, legendY + 4, 12, 12, lane.color);
        p.setPen(text);
        const QString name = tr(lane.name);
        p.drawText(x + 16, legendY, 200, 20, Qt::AlignVCenter | Qt::AlignLeft, name);
        x += 16 + p.fontMetrics().horizontalAdvance(name) + 18;
    }

    if (snapshot_.threads.empty()) {
        p.setPen(faint);
        p.drawText(QRect(plotLeft, kMargin + kLegendHeight, plotWidth, kThreadHeight),
                   Qt::AlignCenter, tr("No samples yet"));
        return;
    }

    // Bucket i spans [i, i+1) * bucketUs; fit the whole recording (at least one second).
    const double spanUs =
        std::max<double>(double(snapshot_.spanUs) + double(snapshot_.bucketUs), 1e6);
    const double pxPerUs = plotWidth / spanUs;
    int y = kMargin + kLegendHeight;
    for (const ThreadTimeline& thread : snapshot_.threads) {
        p.setPen(text);
        QFont bold = font();
        bold.setBold(thread.mainThread);
        p.setFont(bold);
        const QString title = thread.mainThread ? tr("Thread %1 (main)").arg(thread.threadId)
                                                : tr("Thread %1").arg(thread.threadId);
        TimelineBucket total;
        for (const TimelineBucket& b : thread.buckets)
            total.merge(b);
        const auto pct = [&](uint32_t n) {
            return total.samples ? QString::number(100.0 * n / total.samples, 'f', 0) : QString();
        };
        const QString summary =
            tr("  ·  %1 samples  ·  GIL %2%  ·  waiting %3%  ·  CPU %4%  ·  GC %5%")
                .arg(QLocale().toString(qulonglong(thread.samples)))
                .arg(pct(total.hasGil), pct(total.gilRequested), pct(total.onCpu), pct(total.gc));
        p.drawText(kMargin, y, kLabelWidth + plotWidth, kThreadHeaderHeight,
                   Qt::AlignLeft | Qt::AlignVCenter, title + summary);
        p.setFont(font());
        // One aggregate per pixel column: many narrow buckets merge into one column,
        // a wide bucket spans several, and nothing is drawn twice.
        std::vector<TimelineBucket> columns(static_cast<size_t>(plotWidth));
        for (size_t i = 0; i < thread.buckets.size(); ++i) {
            const TimelineBucket& b = thread.buckets[i];
            if (b.samples == 0) continue;
            const int x0 = int(std::floor(double(i) * snapshot_.bucketUs * pxPerUs));
            const int x1 = int(std::ceil(double(i + 1) * snapshot_.bucketUs * pxPerUs));
            for (int x = std::max(0, x0); x < std::min(plotWidth, std::max(x1, x0 + 1)); ++x)
                columns[size_t(x)].merge(b);
        }
        int laneY = y + kThreadHeaderHeight;
        for (const Lane& lane : kLanes) {
            p.setPen(faint);
            p.drawText(kMargin + 12, laneY, kLabelWidth - 16, kLaneHeight,
                       Qt::AlignLeft | Qt::AlignVCenter, tr(lane.name));
            p.fillRect(plotLeft, laneY, plotWidth, kLaneHeight, palette().alternateBase());
            // Runs of equal shade become one rectangle.
            auto shade = [&](int x) {
                const TimelineBucket& c = columns[size_t(x)];
                if (c.samples == 0 || c.*lane.count == 0) return -1;
                return int(std::lround(255.0 * (0.15 + 0.85 * c.*lane.count / c.samples)));
            };
            for (int x = 0; x < plotWidth;) {
                const int alpha = shade(x);
                int end = x + 1;
                while (end < plotWidth && shade(end) == alpha)
                    ++end;
                if (alpha >= 0) {
                    QColor c = lane.color;
                    c.setAlpha(alpha);
                    p.fillRect(plotLeft + x, laneY, end - x, kLaneHeight, c);
                }
                x = end;
            }
            laneY += kLaneHeight + kLaneGap;
        }
        y += kThreadHeight;
    }

    // Time axis.
    p.setPen(faint);
    p.drawLine(plotLeft, y, plotLeft + plotWidth, y);
    const double spanSec = spanUs / 1e6;
    const double step = tickStepSec(spanSec, plotWidth);
    for (double t = 0; t <= spanSec + 1e-9; t += step) {
        const int tx = plotLeft + int(t * 1e6 * pxPerUs);
        p.drawLine(tx, y, tx, y + 4);
        p.setPen(text);
        p.drawText(tx - 40, y + 4, 80, kAxisHeight - 4, Qt::AlignHCenter | Qt::AlignTop,
                   step < 1 ? QStringLiteral("%1 s").arg(t, 0, 'f', 1)
                            : QStringLiteral("%1 s").arg(t, 0, 'f', 0));
        p.setPen(faint);
    }
}

} // namespace gilscope::ui
