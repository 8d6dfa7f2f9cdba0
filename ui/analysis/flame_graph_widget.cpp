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
    updateChanges();
    relayout();
}

void FlameGraphWidget::setComparison(ComparisonPtr comparison) {
    comparison_ = std::move(comparison);
    updateChanges();
    update();
}

void FlameGraphWidget::updateChanges() {
    changes_.clear();
    if (!comparison_ || !comparison_->refusal.isEmpty() || !tree_ || tree_->nodes.empty()) return;
    changes_.assign(tree_->nodes.size(), 0.0);
    const auto& base = comparison_->baseline.pathTotalPct;
    const double all = double(std::max<uint64_t>(tree_->nodes[0].total, 1));
    std::vector<std::pair<uint32_t, uint64_t>> todo{{0, 0}}; // node, its call path key
    while (!todo.empty()) {
        const auto [n, path] = todo.back();
        todo.pop_back();
        for (uint32_t c : tree_->nodes[n].children) {
            const uint64_t childPath = childPathKey(path, lookOf(tree_->nodes[c].func).key);
            const auto it = base.find(childPath);
            changes_[c] =
                100.0 * double(tree_->nodes[c].total) / all - (it == base.end() ? 0.0 : it->second);
            todo.push_back({c, childPath});
        }
    }
}

double FlameGraphWidget::frameChange(uint32_t node) const {
    return node < changes_.size() ? changes_[node] : NAN;
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
    if (!tree_ || node >= tree_->nodes.size() || node == zoom_) return;
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
    for (uint32_t n = node; n != 0; n = tree_->nodes[n].parent)
        path.push_back(tree_->nodes[n].func);
    std::reverse(path.begin(), path.end());
    return path;
}

uint32_t FlameGraphWidget::resolve(const std::vector<uint32_t>& path) const {
    if (!tree_ || tree_->nodes.empty()) return 0;
    uint32_t node = 0;
    for (uint32_t func : path) {
        uint32_t next = 0;
        for (uint32_t c : tree_->nodes[node].children)
            if (tree_->nodes[c].func == func) next = c;
        if (!next) return 0;
        node = next;
    }
    return node;
}

bool FlameGraphWidget::matches(uint32_t node) const {
    if (search_.isEmpty() || node == 0) return false;
    const ProfileSnapshot& s = *result_->snapshot;
    const uint32_t f = tree_->nodes[node].func;
    return functionName(s, f).contains(search_, Qt::CaseInsensitive) ||
           QString::fromStdString(s.functions[f].file).contains(search_, Qt::CaseInsensitive);
}

void FlameGraphWidget::updateSearchShare() {
    searchShare_ = 0;
    if (!tree_ || tree_->nodes.empty() || search_.isEmpty() || tree_->nodes[0].total == 0) return;
    // Samples under the outermost matching frames: each sample counted once.
    uint64_t covered = 0;
    std::vector<uint32_t> todo{0};
    while (!todo.empty()) {
        const uint32_t n = todo.back();
        todo.pop_back();
        if (matches(n)) {
            covered += tree_->nodes[n].total;
            continue;
        }
        for (uint32_t c : tree_->nodes[n].children)
            todo.push_back(c);
    }
    searchShare_ = double(covered) / double(tree_->nodes[0].total);
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
    if (tree_ && !tree_->nodes.empty() && tree_->nodes[0].total > 0) {
        // The zoomed frame's ancestors span the whole width, then it and its callees.
        const std::vector<uint32_t> chain = [&] {
            std::vector<uint32_t> c;
            for (uint32_t n = zoom_; n != 0; n = tree_->nodes[n].parent)
                c.push_back(n);
            c.push_back(0);
            std::reverse(c.begin(), c.end());
            return c;
        }();
        for (size_t d = 0; d + 1 < chain.size(); ++d)
            boxes_.push_back({rowRect(int(d), 0, width()), chain[d], matches(chain[d])});
        layoutChildren(zoom_, 0, width(), int(chain.size()) - 1);
    }
    if (depth_ != oldDepth) updateGeometry(); // the height follows the depth
    update();
}

void FlameGraphWidget::layoutChildren(uint32_t node, double x, double width, int depth) {
    depth_ = std::max(depth_, depth + 1);
    boxes_.push_back({rowRect(depth, x, width), node, matches(node)});
    const CallTreeNode& n = tree_->nodes[node];
    if (n.total == 0) return;
    double cx = x;
    for (uint32_t c : n.children) {
        const double w = width * double(tree_->nodes[c].total) / double(n.total);
        if (w >= kMinWidth) layoutChildren(c, cx, w, depth + 1);
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
        const uint32_t f = tree_->nodes[b.node].func;
        const Look* look = b.node == 0 ? nullptr : &lookOf(f);
        QColor fill = look ? look->fill : QColor(200, 200, 200);
        if (b.node < changes_.size()) fill = changeColor(changes_[b.node]); // Compare with…
        fill = searchedFill(fill, !search_.isEmpty(), b.matched);
        p.fillRect(b.rect, fill);
        if (b.rect.width() > 24) {
            const QString text =
                look ? look->name : tr("all (%1 samples)").arg(tree_->nodes[0].total);
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
        if (b.node != 0 &&
            functionName(*result_->snapshot, tree_->nodes[b.node].func) == function &&
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
    emit frameClicked(tree_->nodes[node].func);
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
        const CallTreeNode& n = tree_->nodes[node];
        const double all = double(std::max<uint64_t>(tree_->nodes[0].total, 1));
        const double zoomed = double(std::max<uint64_t>(tree_->nodes[zoom_].total, 1));
        QString text = node == 0 ? tr("All samples") : functionName(s, n.func);
        if (node != 0) text += QLatin1Char('\n') + functionLocation(s, n.func);
        text += tr("\n%1 samples, %2% of all").arg(n.total).arg(100.0 * n.total / all, 0, 'f', 1);
        if (zoom_ != 0)
            text += tr(", %1% of the zoomed frame").arg(100.0 * n.total / zoomed, 0, 'f', 1);
        if (n.self) text += tr("\n%1 samples in the function itself").arg(n.self);
        if (node != 0 && node < changes_.size())
            text += tr("\n%1 points against the baseline")
                        .arg(QString::asprintf("%+.1f", changes_[node]));
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace gilscope::ui
