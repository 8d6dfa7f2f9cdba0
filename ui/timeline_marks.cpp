// The user's marks on the timeline (Recording › Add marker…, --control's mark): a dashed
// line across the tracks, a flag with the text, and the range from a mark to the next.
#include "ui/timeline_layout.h"
#include "ui/timeline_widget.h"

#include <QPainter>

#include <cmath>
#include <cstdlib>

namespace gilscope::ui {
using namespace timeline;

int TimelineWidget::markX(const TimelineMark& mark) const {
    if (mark.timeUs < snapshot_.originUs) return -1;
    const double at = double(mark.timeUs - snapshot_.originUs) - viewOffsetUs();
    if (at < 0 || at > viewSpanUs()) return -1;
    return plotLeft() + int(std::lround(at / viewSpanUs() * plotWidth()));
}

const TimelineMark* TimelineWidget::markAt(QPoint pos) const {
    for (const TimelineMark& m : snapshot_.marks)
        if (const int x = markX(m); x >= 0 && std::abs(pos.x() - x) <= 3 && pos.y() >= kPlotTop)
            return &m;
    return nullptr;
}

namespace {
QString flagText(const QFontMetrics& fm, const TimelineMark& m) {
    return fm.elidedText(QString::fromStdString(m.text), Qt::ElideRight, 160);
}
} // namespace

QRect TimelineWidget::markFlagRect(const TimelineMark& m) const {
    const int x = markX(m);
    if (x < 0) return {};
    const int w = fontMetrics().horizontalAdvance(flagText(fontMetrics(), m)) + 8;
    return QRect(std::min(x, width() - kMargin - w), kPlotTop, w, kAxisHeight - 4);
}

std::optional<std::pair<uint64_t, uint64_t>> TimelineWidget::markRangeAt(QPoint widgetPos) const {
    const QPoint pos = toLayout(widgetPos);
    const auto& marks = snapshot_.marks;
    for (size_t i = marks.size(); i-- > 0;) // the flag drawn last is on top
        if (markFlagRect(marks[i]).contains(pos)) {
            uint64_t end = snapshot_.originUs + snapshot_.spanUs;
            for (size_t k = i + 1; k < marks.size(); ++k)
                if (marks[k].timeUs > marks[i].timeUs) {
                    end = marks[k].timeUs;
                    break;
                }
            if (end <= marks[i].timeUs) return std::nullopt;
            return std::make_pair(marks[i].timeUs, end);
        }
    return std::nullopt;
}

// A dashed line down every track at each mark, its text in a flag at the top.
void TimelineWidget::paintMarks(QPainter& p) {
    static const QColor kMarkColor(200, 30, 140);
    for (const TimelineMark& m : snapshot_.marks) {
        const int x = markX(m);
        if (x < 0) continue;
        p.setPen(QPen(kMarkColor, 1, Qt::DashLine));
        p.drawLine(x, kPlotTop, x, height());
        const QRect flag = markFlagRect(m);
        p.fillRect(flag, kMarkColor);
        p.setPen(Qt::white);
        p.drawText(flag.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   flagText(p.fontMetrics(), m));
    }
}

} // namespace gilscope::ui
