// The thread tracks as things to click: which threads are drawn where, their names,
// expanding a track into its sub-lanes, and selecting tracks (Ctrl toggles, Shift
// extends), which filters the analysis views.
#include "ui/timeline_layout.h"
#include "ui/timeline_widget.h"

#include <algorithm>

namespace gilscope::ui {
using namespace timeline;

std::vector<uint64_t> TimelineWidget::shownThreads() const {
    std::vector<uint64_t> ids;
    for (const Row& row : rows_)
        if (!row.folded) ids.push_back(snapshot_.threads[row.thread].threadId);
    return ids;
}

std::vector<uint64_t> TimelineWidget::foldedThreads() const {
    std::vector<uint64_t> ids;
    for (size_t index : folded_)
        ids.push_back(snapshot_.threads[index].threadId);
    return ids;
}

QString TimelineWidget::threadTitle(uint64_t threadId) const {
    for (const ThreadTimeline& t : snapshot_.threads) {
        if (t.threadId != threadId) continue;
        QString title = tr("Thread %1").arg(t.threadId);
        // The source hands on no kernel name equal to the process's (inherited, it says nothing).
        if (!t.name.empty()) title += QStringLiteral(" · ") + QString::fromStdString(t.name);
        if (t.mainThread) title += tr(" (main)");
        return title;
    }
    return {};
}

QString TimelineWidget::trackLabel(uint64_t threadId, const QFontMetrics& metrics,
                                   int width) const {
    QString label = threadTitle(threadId);
    for (const ThreadTimeline& t : snapshot_.threads) {
        if (t.threadId != threadId || t.name.empty()) continue;
        label =
            QString::fromStdString(t.name) + QStringLiteral(" · ") + QString::number(t.threadId);
        if (t.mainThread) label += tr(" (main)");
    }
    return metrics.elidedText(label, Qt::ElideRight, width);
}

const TimelineWidget::Row* TimelineWidget::rowAt(int y) const {
    for (const Row& row : rows_)
        if (y >= row.y && y < row.y + row.height) return &row;
    return nullptr;
}

const TimelineWidget::Row* TimelineWidget::rowOf(uint64_t threadId) const {
    for (const Row& row : rows_)
        if (snapshot_.threads[row.thread].threadId == threadId) return &row;
    return nullptr;
}

QRect TimelineWidget::trackRect(uint64_t threadId) const {
    const Row* row = rowOf(threadId);
    return row ? QRect(0, row->y, width(), row->height) : QRect();
}

QRect TimelineWidget::nameRect(uint64_t threadId) const {
    const Row* row = rowOf(threadId);
    return row ? QRect(kMargin, row->y + 1, kLabelWidth - 4, kTrackHeight - 2) : QRect();
}

QRect TimelineWidget::twistyRect(uint64_t threadId) const {
    const QRect name = nameRect(threadId);
    return name.isEmpty() ? QRect() : QRect(name.left(), name.top(), kTwistyWidth, name.height());
}

QRect TimelineWidget::laneRect(uint64_t threadId, int lane) const {
    const Row* row = rowOf(threadId);
    if (lane < 0 || lane >= kLaneCount || !row || !row->expanded) return {};
    return QRect(plotLeft(), row->y + kTrackHeight + lane * (kLaneHeight + kLaneGap), plotWidth(),
                 kLaneHeight);
}

QRect TimelineWidget::noteRect() const {
    return noteY_ < 0 ? QRect() : QRect(kMargin, noteY_, width() - 2 * kMargin, kNoteHeight);
}

void TimelineWidget::setExpanded(uint64_t threadId, bool expand) {
    if (expand == expanded(threadId)) return;
    if (expand)
        expanded_.insert(threadId);
    else
        expanded_.erase(threadId);
    relayout();
    update();
}

void TimelineWidget::setAllExpanded(bool expand) {
    expanded_.clear();
    if (expand)
        for (const ThreadTimeline& t : snapshot_.threads)
            expanded_.insert(t.threadId);
    relayout();
    update();
}

void TimelineWidget::setSelectedThreads(std::vector<uint64_t> threads) {
    std::sort(threads.begin(), threads.end());
    if (threads == selected_) return;
    selected_ = std::move(threads);
    update();
}

// Plain click: that track alone (again: all threads); Ctrl: toggle it; Shift: every
// track drawn between the last clicked one and this one.
void TimelineWidget::clickName(const Row& row, Qt::KeyboardModifiers modifiers) {
    const uint64_t id = snapshot_.threads[row.thread].threadId;
    std::vector<uint64_t> next = selected_;
    const auto it = std::find(next.begin(), next.end(), id);
    if (modifiers & Qt::ShiftModifier) {
        std::vector<uint64_t> order;
        for (const Row& r : rows_)
            order.push_back(snapshot_.threads[r.thread].threadId);
        auto a = std::find(order.begin(), order.end(), anchor_);
        auto b = std::find(order.begin(), order.end(), id);
        if (a == order.end()) a = b;
        if (a > b) std::swap(a, b);
        for (auto i = a; i <= b; ++i)
            if (std::find(next.begin(), next.end(), *i) == next.end()) next.push_back(*i);
    } else if (modifiers & Qt::ControlModifier) {
        if (it == next.end())
            next.push_back(id);
        else
            next.erase(it);
        anchor_ = id;
    } else {
        const bool onlyThis = next.size() == 1 && it != next.end();
        next.clear();
        if (!onlyThis) next.push_back(id);
        anchor_ = id;
    }
    std::sort(next.begin(), next.end());
    if (next == selected_) return;
    selected_ = next;
    update();
    emit threadSelectionChanged(selected_);
}

} // namespace gilscope::ui
