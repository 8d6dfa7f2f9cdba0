#include "ui/analysis/flame_graph_widget.h"

#include "core/analysis/module_color.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace gilscope::ui {

namespace {
constexpr int kRowHeight = 18;
constexpr double kMinWidth = 0.7; // narrower frames are not drawn
} // namespace

FlameGraphWidget::FlameGraphWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

QSize FlameGraphWidget::sizeHint() const {
    return {800, std::max(200, (depth_ + 2) * kRowHeight)};
}

QSize FlameGraphWidget::minimumSizeHint() const {
    return {200, std::max(100, (depth_ + 2) * kRowHeight)};
}

void FlameGraphWidget::setResult(AnalysisResultPtr result) {
    result_ = std::move(result);
    if (!result_ || result_->modelSerial != modelSerial_) {
        looks_.clear(); // function ids mean other functions now
        modelSerial_ = result_ ? result_->modelSerial : 0;
    }
    tree_ = result_ && result_->snapshot ? &result_->topDown : nullptr;
    // Live updates rebuild the tree: keep the zoom by its path of functions.
    zoom_ = resolve(zoomPath_);
    if (zoom_ == 0) zoomPath_.clear();
    updateSearchShare();
    relayout();
}

void FlameGraphWidget::setComparison(ComparisonPtr comparison) {
    comparison_ = std::move(comparison);
    relayout();
}

bool FlameGraphWidget::comparing() const {
    return comparison_ && comparison_->refusal.isEmpty() && tree_ && !tree_->empty();
}

double FlameGraphWidget::changeOf(uint32_t node, uint64_t pathKey) const {
    if (!comparing() || node == 0) return NAN;
    const auto& base = comparison_->baseline.pathTotalPct;
    const double all = double(std::max<uint64_t>(tree_->total(0), 1));
    const auto it = base.find(pathKey);
    return 100.0 * double(tree_->total(node)) / all - (it == base.end() ? 0.0 : it->second);
}

double FlameGraphWidget::frameChange(uint32_t node) const {
    for (const Box& b : boxes_)
        if (b.node == node) return b.change;
    return NAN;
}

QColor FlameGraphWidget::changeColor(double points) {
    const Rgb c = gilscope::changeColor(points, kFullChange); // shared with the HTML output
    return QColor(c.r, c.g, c.b);
}

void FlameGraphWidget::setSearch(const QString& text) {
    search_ = text.trimmed();
    updateSearchShare();
    relayout();
}

void FlameGraphWidget::setIcicle(bool icicle) {
    icicle_ = icicle;
    relayout();
}

void FlameGraphWidget::zoomTo(uint32_t node) {
    if (!tree_ || node >= tree_->size() || node == zoom_) return;
    history_.push_back(zoomPath_);
    zoom_ = node;
    zoomPath_ = pathTo(node);
    relayout();
    emit zoomChanged();
}

void FlameGraphWidget::back() {
    if (history_.empty()) return;
    zoomPath_ = history_.back();
    history_.pop_back();
    zoom_ = resolve(zoomPath_);
    relayout();
    emit zoomChanged();
}

void FlameGraphWidget::resetZoom() {
    if (zoom_ == 0 && history_.empty()) return;
    history_.clear();
    zoomPath_.clear();
    zoom_ = 0;
    relayout();
    emit zoomChanged();
}

std::vector<uint32_t> FlameGraphWidget::pathTo(uint32_t node) const {
    std::vector<uint32_t> path;
    for (uint32_t n = node; n != 0; n = tree_->parent(n))
        path.push_back(tree_->func(n));
    std::reverse(path.begin(), path.end());
    return path;
}

uint32_t FlameGraphWidget::resolve(const std::vector<uint32_t>& path) const {
    if (!tree_ || tree_->empty()) return 0;
    uint32_t node = 0;
    for (uint32_t func : path) {
        uint32_t next = 0;
        for (uint32_t c : tree_->children(node))
            if (tree_->func(c) == func) next = c;
        if (!next) return 0;
        node = next;
    }
    return node;
}

bool FlameGraphWidget::matches(uint32_t node) const {
    if (search_.isEmpty() || node == 0) return false;
    const ProfileSnapshot& s = *result_->snapshot;
    const uint32_t f = tree_->func(node);
    return functionName(s, f).contains(search_, Qt::CaseInsensitive) ||
           QString::fromStdString(s.functions[f].file).contains(search_, Qt::CaseInsensitive);
}

void FlameGraphWidget::updateSearchShare() {
    searchShare_ = 0;
    if (!result_ || !result_->snapshot || search_.isEmpty()) return;
    // Samples with a matching frame anywhere on their stack, each counted once: from the
    // snapshot's stacks, so that a bottom-up tree need not be explored whole.
    const ProfileSnapshot& s = *result_->snapshot;
    std::vector<int8_t> funcMatches(s.functions.size(), -1); // -1: not looked at yet
    const auto matchesFunc = [&](uint32_t f) {
        if (f >= funcMatches.size()) return false;
        if (funcMatches[f] < 0)
            funcMatches[f] =
                functionName(s, f).contains(search_, Qt::CaseInsensitive) ||
                QString::fromStdString(s.functions[f].file).contains(search_, Qt::CaseInsensitive);
        return funcMatches[f] == 1;
    };
    uint64_t covered = 0, all = 0;
    for (uint32_t n = 1; n < s.selfCounts.size() && n < s.nodes.size(); ++n) {
        if (!s.selfCounts[n]) continue;
        all += s.selfCounts[n];
        for (uint32_t at = n; at != 0; at = s.nodes[at].parent)
            if (matchesFunc(s.nodes[at].func)) {
                covered += s.selfCounts[n];
                break;
            }
    }
    searchShare_ = all ? double(covered) / double(all) : 0;
}

QString FlameGraphWidget::searchSummary() const {
    if (search_.isEmpty()) return {};
    return tr("“%1” is on the stack in %2% of the samples")
        .arg(search_)
        .arg(100.0 * searchShare_, 0, 'f', 1);
}

QRectF FlameGraphWidget::rowRect(int depth, double x, double width) const {
    const double y = icicle_ ? depth * kRowHeight : height() - (depth + 1) * kRowHeight;
    return {x, y, width, double(kRowHeight - 1)};
}

const FlameGraphWidget::Look& FlameGraphWidget::lookOf(uint32_t func) {
    if (func >= looks_.size()) looks_.resize(func + 1);
    Look& look = looks_[func];
    if (look.known) return look;
    const ProfileSnapshot& s = *result_->snapshot;
    look.fill = functionColor(s.functions[func]);
    look.name = functionName(s, func);
    look.nameWidth = fontMetrics().horizontalAdvance(look.name);
    look.key = functionKey(s.functions[func]);
    look.known = true;
    return look;
}

void FlameGraphWidget::relayout() {
    boxes_.clear();
    const int oldDepth = depth_;
    depth_ = 0;
    if (tree_ && !tree_->empty() && tree_->total(0) > 0) {
        // The zoomed frame's ancestors span the whole width, then it and its callees.
        const std::vector<uint32_t> chain = [&] {
            std::vector<uint32_t> c;
            for (uint32_t n = zoom_; n != 0; n = tree_->parent(n))
                c.push_back(n);
            c.push_back(0);
            std::reverse(c.begin(), c.end());
            return c;
        }();
        uint64_t key = 0;
        for (size_t d = 0; d + 1 < chain.size(); ++d) {
            if (d > 0) key = childPathKey(key, lookOf(tree_->func(chain[d])).key);
            boxes_.push_back({rowRect(int(d), 0, width()), chain[d], matches(chain[d]),
                              changeOf(chain[d], key)});
        }
        if (zoom_ != 0) key = childPathKey(key, lookOf(tree_->func(zoom_)).key);
        layoutChildren(zoom_, 0, width(), int(chain.size()) - 1, key);
    }
    if (depth_ != oldDepth) updateGeometry(); // the height follows the depth
    update();
}

void FlameGraphWidget::layoutChildren(uint32_t node, double x, double width, int depth,
                                      uint64_t pathKey) {
    depth_ = std::max(depth_, depth + 1);
    boxes_.push_back({rowRect(depth, x, width), node, matches(node), changeOf(node, pathKey)});
    const uint64_t total = tree_->total(node);
    if (total == 0 || width * double(total - tree_->self(node)) / double(total) < kMinWidth)
        return; // no callee could be wide enough: a bottom-up node stays unexplored
    // Children are sorted by total: the first too narrow ends the row.
    const std::vector<uint32_t> kids(tree_->children(node).begin(), tree_->children(node).end());
    double cx = x;
    for (uint32_t c : kids) {
        const double w = width * double(tree_->total(c)) / double(total);
        if (w < kMinWidth) break;
        const uint64_t key = comparing() ? childPathKey(pathKey, lookOf(tree_->func(c)).key) : 0;
        layoutChildren(c, cx, w, depth + 1, key);
        cx += w;
    }
}

void FlameGraphWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    relayout();
}

void FlameGraphWidget::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (boxes_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No samples for this filter yet."));
        return;
    }
    const QFontMetrics fm = p.fontMetrics();
    const QRectF exposed(event->rect());
    for (const Box& b : boxes_) {
        if (!b.rect.intersects(exposed)) continue;
        const uint32_t f = tree_->func(b.node);
        const Look* look = b.node == 0 ? nullptr : &lookOf(f);
        QColor fill = look ? look->fill : QColor(200, 200, 200);
        if (!std::isnan(b.change)) fill = changeColor(b.change); // Compare with…
        fill = searchedFill(fill, !search_.isEmpty(), b.matched);
        p.fillRect(b.rect, fill);
        if (b.rect.width() > 24) {
            const QString text = look ? look->name : tr("all (%1 samples)").arg(tree_->total(0));
            const int room = int(b.rect.width()) - 5;
            // Most names fit: measure (elide) only the ones that do not.
            const bool fits = look && look->nameWidth <= room;
            p.setPen(b.matched ? Qt::white : Qt::black);
            p.drawText(b.rect.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fits ? text : fm.elidedText(text, Qt::ElideRight, room));
        }
    }
}

uint32_t FlameGraphWidget::nodeAt(QPoint pt) const {
    for (const Box& b : boxes_)
        if (b.rect.contains(pt)) return b.node;
    return UINT32_MAX;
}

QRect FlameGraphWidget::frameRect(const QString& function) const {
    QRectF best;
    for (const Box& b : boxes_)
        if (b.node != 0 && functionName(*result_->snapshot, tree_->func(b.node)) == function &&
            b.rect.width() > best.width())
            best = b.rect;
    return best.toAlignedRect();
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
    const uint32_t node = nodeAt(event->position().toPoint());
    if (node == UINT32_MAX) return;
    if (node == 0) {
        resetZoom();
        return;
    }
    zoomTo(node);
    emit frameClicked(tree_->func(node));
}

bool FlameGraphWidget::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const uint32_t node = nodeAt(help->pos());
        if (node == UINT32_MAX || !tree_) {
            QToolTip::hideText();
            return true;
        }
        const ProfileSnapshot& s = *result_->snapshot;
        const uint32_t func = tree_->func(node);
        const uint64_t total = tree_->total(node), self = tree_->self(node);
        const double all = double(std::max<uint64_t>(tree_->total(0), 1));
        const double zoomed = double(std::max<uint64_t>(tree_->total(zoom_), 1));
        QString text = node == 0 ? tr("All samples") : functionName(s, func);
        if (node != 0) text += QLatin1Char('\n') + functionLocation(s, func);
        text +=
            tr("\n%1 samples, %2% of all").arg(total).arg(100.0 * double(total) / all, 0, 'f', 1);
        if (zoom_ != 0)
            text += tr(", %1% of the zoomed frame").arg(100.0 * double(total) / zoomed, 0, 'f', 1);
        if (self) text += tr("\n%1 samples in the function itself").arg(self);
        if (const double change = frameChange(node); node != 0 && !std::isnan(change))
            text += tr("\n%1 points against the baseline").arg(QString::asprintf("%+.1f", change));
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace gilscope::ui
