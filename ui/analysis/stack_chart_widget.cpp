#include "ui/analysis/stack_chart_widget.h"

#include "ui/analysis/analysis_result.h"
#include "ui/timeline_layout.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace gilscope::ui {

namespace {
constexpr int kHeaderHeight = 18;
constexpr int kRowHeight = 16;
constexpr int kStripHeight = 6;
constexpr int kLaneGap = 8;
constexpr int kMinLabelWidth = 24; // narrower boxes go without a name

QString seconds(uint64_t us) {
    return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 4);
}

QString duration(uint64_t us) {
    if (us >= 1'000'000) return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 3);
    return QStringLiteral("%1 ms").arg(double(us) / 1e3, 0, 'f', us < 10'000 ? 2 : 1);
}

QString stateName(ColumnState s) {
    switch (s) {
    case ColumnState::HoldsGil:
        return StackChartWidget::tr("holding the GIL");
    case ColumnState::WaitsForGil:
        return StackChartWidget::tr("waiting for the GIL");
    case ColumnState::OnCpu:
        return StackChartWidget::tr("on CPU without the GIL");
    case ColumnState::OffCpu:
        return StackChartWidget::tr("off CPU");
    case ColumnState::Unknown:
        return StackChartWidget::tr("CPU state unknown");
    case ColumnState::None:
        break;
    }
    return StackChartWidget::tr("not sampled");
}
} // namespace

StackChartWidget::StackChartWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QColor StackChartWidget::stateColor(ColumnState state) {
    // The timeline's lane colours, so a state looks the same in both.
    switch (state) {
    case ColumnState::HoldsGil:
        return timeline::kLanes[0].color;
    case ColumnState::WaitsForGil:
        return timeline::kLanes[1].color;
    case ColumnState::OnCpu:
        return timeline::kLanes[2].color;
    case ColumnState::OffCpu:
        return QColor(200, 200, 200);
    case ColumnState::Unknown:
        return QColor(150, 150, 150);
    case ColumnState::None:
        break;
    }
    return {};
}

QSize StackChartWidget::sizeHint() const {
    return {800, std::max(200, contentHeight_)};
}

QSize StackChartWidget::minimumSizeHint() const {
    return {200, std::max(100, contentHeight_)};
}

void StackChartWidget::setChart(std::shared_ptr<const StackChart> chart, uint64_t modelSerial) {
    if (modelSerial != modelSerial_) looks_.clear(); // function ids mean other functions now
    modelSerial_ = modelSerial;
    chart_ = std::move(chart);
    relayout();
}

void StackChartWidget::setSearch(const QString& text) {
    search_ = text.trimmed();
    for (Look& look : looks_)
        look.known = false;
    relayout();
}

void StackChartWidget::setThreadTitles(std::function<QString(uint64_t)> titles) {
    titles_ = std::move(titles);
    update();
}

const StackChartWidget::Look& StackChartWidget::lookOf(uint32_t func) {
    if (func >= looks_.size()) looks_.resize(func + 1);
    Look& look = looks_[func];
    if (look.known || func >= chart_->functions.size()) return look;
    const FunctionInfo& f = chart_->functions[func];
    look.name = QString::fromStdString(f.name);
    const QString file = QString::fromStdString(f.file);
    look.matched = !search_.isEmpty() && (look.name.contains(search_, Qt::CaseInsensitive) ||
                                          file.contains(search_, Qt::CaseInsensitive));
    look.fill = searchedFill(functionColor(f), !search_.isEmpty(), look.matched).rgb();
    look.nameWidth = fontMetrics().horizontalAdvance(look.name);
    look.known = true;
    return look;
}

void StackChartWidget::relayout() {
    geometry_.clear();
    matchedBoxes_ = 0;
    int y = 0;
    if (chart_) {
        for (const StackChartLane& lane : chart_->lanes) {
            LaneGeometry g;
            g.top = y;
            g.rows = y + kHeaderHeight;
            g.strip = g.rows + int(lane.depths.size()) * kRowHeight;
            g.bottom = g.strip + kStripHeight + kLaneGap;
            y = g.bottom;
            geometry_.push_back(g);
            if (!search_.isEmpty())
                for (const auto& row : lane.depths)
                    for (const StackChartBox& b : row)
                        if (lookOf(chart_->nodes[b.node].func).matched) ++matchedBoxes_;
        }
    }
    if (y != contentHeight_) {
        contentHeight_ = y;
        updateGeometry(); // the height follows the lanes' depths
    }
    update();
}

int StackChartWidget::widgetX(uint32_t column) const {
    if (!chart_ || chart_->widthPx == 0) return 0;
    if (int(chart_->widthPx) == width()) return int(column); // as computed for this width
    return int(int64_t(column) * width() / chart_->widthPx);
}

uint32_t StackChartWidget::columnOf(int x) const {
    if (!chart_ || chart_->widthPx == 0 || width() <= 0) return 0;
    const int64_t c = int64_t(std::clamp(x, 0, width() - 1)) * chart_->widthPx / width();
    return uint32_t(std::min<int64_t>(c, chart_->widthPx - 1));
}

int StackChartWidget::xAt(uint64_t timeUs) const {
    return chart_ ? widgetX(chart_->columnAt(timeUs)) : 0;
}

int StackChartWidget::laneAt(int y) const {
    for (size_t i = 0; i < geometry_.size(); ++i)
        if (y >= geometry_[i].top && y < geometry_[i].bottom) return int(i);
    return -1;
}

const StackChartBox* StackChartWidget::boxAt(size_t lane, int depth, uint32_t column) const {
    const auto& depths = chart_->lanes[lane].depths;
    if (depth < 0 || size_t(depth) >= depths.size()) return nullptr;
    const auto& row = depths[size_t(depth)];
    auto it = std::upper_bound(row.begin(), row.end(), column,
                               [](uint32_t c, const StackChartBox& b) { return c < b.x1; });
    return it != row.end() && it->x0 <= column ? &*it : nullptr;
}

QStringList StackChartWidget::stackAt(uint64_t threadId, int x) const {
    QStringList names;
    if (!chart_) return names;
    for (size_t l = 0; l < chart_->lanes.size(); ++l) {
        if (chart_->lanes[l].threadId != threadId) continue;
        for (int d = 0;; ++d) {
            const StackChartBox* b = boxAt(l, d, columnOf(x));
            if (!b) break;
            names << QString::fromStdString(chart_->functions[chart_->nodes[b->node].func].name);
        }
    }
    return names;
}

ColumnState StackChartWidget::stateAt(uint64_t threadId, int x) const {
    if (chart_)
        for (const StackChartLane& lane : chart_->lanes)
            if (lane.threadId == threadId && !lane.state.empty()) return lane.state[columnOf(x)];
    return ColumnState::None;
}

QRect StackChartWidget::frameRect(uint64_t threadId, int depth, int x) const {
    if (chart_)
        for (size_t l = 0; l < chart_->lanes.size(); ++l)
            if (chart_->lanes[l].threadId == threadId)
                if (const StackChartBox* b = boxAt(l, depth, columnOf(x))) {
                    const int x0 = widgetX(b->x0), x1 = widgetX(b->x1);
                    return {x0, geometry_[l].rows + depth * kRowHeight, x1 - x0, kRowHeight - 1};
                }
    return {};
}

QRect StackChartWidget::stripRect(uint64_t threadId) const {
    if (chart_)
        for (size_t l = 0; l < chart_->lanes.size(); ++l)
            if (chart_->lanes[l].threadId == threadId)
                return {0, geometry_[l].strip, width(), kStripHeight};
    return {};
}

const FunctionInfo* StackChartWidget::functionAt(QPoint pos) const {
    const int l = chart_ ? laneAt(pos.y()) : -1;
    if (l < 0 || pos.y() < geometry_[size_t(l)].rows) return nullptr;
    const StackChartBox* b =
        boxAt(size_t(l), (pos.y() - geometry_[size_t(l)].rows) / kRowHeight, columnOf(pos.x()));
    if (!b || chart_->nodes[b->node].func >= chart_->functions.size()) return nullptr;
    return &chart_->functions[chart_->nodes[b->node].func];
}

QString StackChartWidget::toolTipAt(QPoint pos) const {
    const int l = laneAt(pos.y());
    if (l < 0) return {};
    const StackChartLane& lane = chart_->lanes[size_t(l)];
    const LaneGeometry& g = geometry_[size_t(l)];
    const uint32_t column = columnOf(pos.x());
    const QString title = titles_ ? titles_(lane.threadId) : QString();
    const QString thread = title.isEmpty() ? tr("Thread %1").arg(lane.threadId) : title;
    const uint64_t origin = chart_->originUs;
    auto since = [origin](uint64_t t) { return t > origin ? t - origin : 0; };
    const QString state = stateName(lane.state[column]);
    if (pos.y() < g.rows || pos.y() >= g.strip) {
        const uint64_t at = chart_->columnStartUs(column);
        return tr("%1\n%2 at %3").arg(thread, state, seconds(since(at)));
    }
    const StackChartBox* b = boxAt(size_t(l), (pos.y() - g.rows) / kRowHeight, column);
    if (!b) return {};
    const StackNode& node = chart_->nodes[b->node];
    const FunctionInfo& f = chart_->functions[node.func];
    QString where = QString::fromStdString(f.file);
    if (node.line < chart_->lines.size() && chart_->lines[node.line].line >= 0)
        where += QLatin1Char(':') + QString::number(chart_->lines[node.line].line);
    const uint64_t from = chart_->columnStartUs(b->x0), to = chart_->columnStartUs(b->x1);
    return tr("%1\n%2\n%3: from %4 for %5\n%6 here")
        .arg(QString::fromStdString(f.name), where, thread, seconds(since(from)),
             duration(to - from), state);
}

void StackChartWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    emit widthChanged(width());
}

// Box fills go straight into an image, one scan line at a time: tens of thousands of
// one-pixel boxes cost what their pixels cost, not one paint-engine call each.
void StackChartWidget::paintLane(QImage& image, QPoint origin, const QRect& exposed, size_t l) {
    const StackChartLane& lane = chart_->lanes[l];
    const LaneGeometry& g = geometry_[l];
    // The pixels themselves, found once (scanLine() would check for a detach each time).
    auto* bits = reinterpret_cast<QRgb*>(image.bits());
    const qsizetype stride = image.bytesPerLine() / qsizetype(sizeof(QRgb));
    auto fill = [&](int x0, int x1, int y0, int y1, QRgb rgb) {
        x0 = std::max(x0, exposed.left());
        x1 = std::min(x1, exposed.right() + 1);
        y0 = std::max(y0, exposed.top());
        y1 = std::min(y1, exposed.bottom() + 1);
        if (x1 <= x0) return;
        for (int y = y0; y < y1; ++y) {
            QRgb* line = bits + (y - origin.y()) * stride - origin.x();
            std::fill(line + x0, line + x1, rgb);
        }
    };
    for (size_t d = 0; d < lane.depths.size(); ++d) {
        const int y = g.rows + int(d) * kRowHeight;
        if (y + kRowHeight <= exposed.top() || y > exposed.bottom()) continue;
        const auto& row = lane.depths[d];
        const uint32_t first = columnOf(exposed.left());
        auto it = std::upper_bound(row.begin(), row.end(), first,
                                   [](uint32_t c, const StackChartBox& b) { return c < b.x1; });
        for (; it != row.end(); ++it) {
            const int x0 = widgetX(it->x0), x1 = widgetX(it->x1);
            if (x0 > exposed.right()) break;
            if (x1 <= x0) continue;
            // A gap between boxes wide enough to spare a pixel.
            fill(x0, x1 - (x1 - x0 >= 3 ? 1 : 0), y, y + kRowHeight - 1,
                 lookOf(chart_->nodes[it->node].func).fill);
        }
    }
    if (g.strip + kStripHeight > exposed.top() && g.strip <= exposed.bottom())
        for (uint32_t c = columnOf(exposed.left()); c < lane.state.size(); ++c) {
            const int x0 = widgetX(c), x1 = widgetX(c + 1);
            if (x0 > exposed.right()) break;
            if (lane.state[c] != ColumnState::None)
                fill(x0, std::max(x1, x0 + 1), g.strip, g.strip + kStripHeight,
                     stateColor(lane.state[c]).rgb());
        }
}

void StackChartWidget::paintLabels(QPainter& p, const QRect& exposed, size_t l) {
    const StackChartLane& lane = chart_->lanes[l];
    const LaneGeometry& g = geometry_[l];
    const QFontMetrics fm = p.fontMetrics();
    if (g.top + kHeaderHeight > exposed.top() && g.top <= exposed.bottom()) {
        const QString title = titles_ ? titles_(lane.threadId) : QString();
        QString text = title.isEmpty() ? tr("Thread %1").arg(lane.threadId) : title;
        if (title.isEmpty() && lane.mainThread) text += tr(" (main)");
        text += tr(" · %1 samples in view").arg(lane.samples);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, g.top, width() - 8, kHeaderHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   text);
    }
    for (size_t d = 0; d < lane.depths.size(); ++d) {
        const int y = g.rows + int(d) * kRowHeight;
        if (y + kRowHeight <= exposed.top() || y > exposed.bottom()) continue;
        for (const StackChartBox& b : lane.depths[d]) {
            const int x0 = widgetX(b.x0), x1 = widgetX(b.x1);
            if (x1 - x0 < kMinLabelWidth || x1 <= exposed.left() || x0 > exposed.right()) continue;
            const Look& look = lookOf(chart_->nodes[b.node].func);
            const int room = x1 - x0 - 5;
            p.setPen(look.matched ? Qt::white : Qt::black);
            // Most names fit: measure (elide) only the ones that do not.
            p.drawText(QRect(x0 + 3, y, room, kRowHeight - 1), Qt::AlignLeft | Qt::AlignVCenter,
                       look.nameWidth <= room ? look.name
                                              : fm.elidedText(look.name, Qt::ElideRight, room));
        }
    }
}

void StackChartWidget::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    // Only what shows: a tall chart in its scroll area paints the viewport's part.
    const QRect exposed = event->rect() & visibleRegion().boundingRect();
    if (!chart_ || chart_->lanes.empty()) {
        p.fillRect(exposed, palette().base());
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No samples of the selected threads in this time."));
        return;
    }
    if (exposed.isEmpty()) return;
    QImage image(exposed.size(), QImage::Format_RGB32);
    image.fill(palette().base().color());
    for (size_t l = 0; l < geometry_.size(); ++l)
        if (geometry_[l].bottom > exposed.top() && geometry_[l].top <= exposed.bottom())
            paintLane(image, exposed.topLeft(), exposed, l);
    p.drawImage(exposed.topLeft(), image);
    for (size_t l = 0; l < geometry_.size(); ++l)
        if (geometry_[l].bottom > exposed.top() && geometry_[l].top <= exposed.bottom())
            paintLabels(p, exposed, l);
}

void StackChartWidget::mousePressEvent(QMouseEvent* event) {
    const QPoint pos = event->position().toPoint();
    const int l = laneAt(pos.y());
    if (event->button() != Qt::LeftButton || l < 0 || pos.y() < geometry_[size_t(l)].rows)
        return QWidget::mousePressEvent(event);
    const StackChartBox* b =
        boxAt(size_t(l), (pos.y() - geometry_[size_t(l)].rows) / kRowHeight, columnOf(pos.x()));
    if (b) emit frameClicked(chart_->nodes[b->node].func);
}

void StackChartWidget::wheelEvent(QWheelEvent* event) {
    const int notches = event->angleDelta().y();
    if (!(event->modifiers() & Qt::ControlModifier) || !chart_ || notches == 0)
        return QWidget::wheelEvent(event); // the scroll area scrolls the lanes
    const uint32_t column = columnOf(int(event->position().x()));
    emit zoomRequested(chart_->columnStartUs(column), std::pow(0.8, notches / 120.0));
    event->accept();
}

bool StackChartWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace gilscope::ui
