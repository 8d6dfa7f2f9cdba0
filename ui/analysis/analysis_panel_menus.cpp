#include "ui/analysis/analysis_panel.h"

#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/call_tree_model.h"
#include "ui/analysis/callers_callees_view.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/stack_chart_view.h"
#include "ui/analysis/stack_chart_widget.h"
#include "ui/analysis/top_functions_model.h"

#include <QMenu>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QToolTip>
#include <QTreeView>

// The analysis panel's right-click menus: every view offers the call-tree transforms of
// the frame under the pointer (transform_menu.h).
namespace gilscope::ui {

namespace {

FunctionRef refOf(const ProfileSnapshot& s, uint32_t func) {
    if (func >= s.functions.size()) return {};
    return {s.functions[func].name, s.functions[func].file};
}

// The target of a path of function ids (root first) in a snapshot; the path is kept
// only where `withPath` (a top-down tree that is not inverted).
FrameTarget targetOf(const ProfileSnapshot& s, const std::vector<uint32_t>& path, bool withPath) {
    FrameTarget t;
    if (path.empty()) return t;
    t.function = refOf(s, path.back());
    if (withPath && !s.inverted)
        for (uint32_t f : path)
            t.path.push_back(refOf(s, f));
    return t;
}

} // namespace

FrameTarget AnalysisPanel::targetAt(QWidget* view, QPoint pos) const {
    if (view == flame_) {
        const AnalysisResultPtr& r = flame_->result();
        const uint32_t node = flame_->nodeAt(pos);
        if (!r || !r->snapshot || node == UINT32_MAX || node == 0) return {};
        return targetOf(*r->snapshot, flame_->pathTo(node), true);
    }
    for (auto [tree, proxy, model] : {std::tuple{treeView_, treeProxy_, treeModel_},
                                      std::tuple{bottomUpView_, bottomUpProxy_, bottomUpModel_}}) {
        if (view != tree && view != tree->viewport()) continue;
        const QModelIndex index = proxy->mapToSource(tree->indexAt(pos));
        const AnalysisResultPtr& r = model->result();
        const uint32_t node = index.isValid() ? model->nodeOf(index) : 0;
        if (!r || !r->snapshot || !model->tree() || node == 0) return {};
        std::vector<uint32_t> path;
        for (uint32_t n = node; n != 0; n = model->tree()->parent(n))
            path.insert(path.begin(), model->tree()->func(n));
        if (tree == bottomUpView_) path = {path.back()}; // a path from the leaf: no call path
        return targetOf(*r->snapshot, path, tree == treeView_);
    }
    const AnalysisResultPtr r = controller_->latest();
    if (!r || !r->snapshot) return {};
    if (view == topView_ || view == topView_->viewport()) {
        const QModelIndex index = topView_->indexAt(pos);
        if (!index.isValid()) return {};
        return targetOf(*r->snapshot, {index.data(FunctionRole).toUInt()}, false);
    }
    for (QTableWidget* table : {callers_->callers(), callers_->callees()}) {
        if (view != table && view != table->viewport()) continue;
        const QTableWidgetItem* item = table->item(table->rowAt(pos.y()), 0);
        if (!item) return {};
        return targetOf(*r->snapshot, {item->data(Qt::UserRole).toUInt()}, false);
    }
    if (view == stackChart_->chart()) {
        const FunctionInfo* f = stackChart_->chart()->functionAt(pos);
        FrameTarget t;
        if (f) t.function = {f->name, f->file};
        return t;
    }
    return {};
}

QMenu* AnalysisPanel::frameMenu(const FrameTarget& target) {
    return transformMenu(target, controller_, this);
}

FrameTarget AnalysisPanel::currentTarget() const {
    QWidget* shown = tabs_->currentWidget();
    const auto viewCurrent = [&](QAbstractItemView* view) -> FrameTarget {
        const QModelIndex current = view->currentIndex();
        if (!current.isValid()) return {};
        return targetAt(view->viewport(), view->visualRect(current).center());
    };
    FrameTarget t;
    if (shown == topView_ || shown == treeView_ || shown == bottomUpView_)
        t = viewCurrent(static_cast<QAbstractItemView*>(shown));
    else if (shown == callers_)
        for (QTableWidget* table : {callers_->callers(), callers_->callees()})
            if (!t.valid() && table->hasFocus()) t = viewCurrent(table);
    if (!t.valid() && shown == flamePage_ && flame_->zoomNode() != 0) {
        const AnalysisResultPtr& r = flame_->result();
        if (r && r->snapshot) t = targetOf(*r->snapshot, flame_->pathTo(flame_->zoomNode()), true);
    }
    if (!t.valid()) {
        const auto r = controller_->latest();
        if (r && r->snapshot && selectedFunc_ < r->snapshot->functions.size())
            t = targetOf(*r->snapshot, {selectedFunc_}, false);
    }
    return t;
}

bool AnalysisPanel::openTransformMenu(QPoint global) {
    const FrameTarget target = currentTarget();
    if (!target.valid()) {
        QToolTip::showText(global, tr("Select a function first (click a row or a frame)."), this);
        return false;
    }
    QMenu* menu = frameMenu(target);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(global);
    return true;
}

void AnalysisPanel::installFrameMenus() {
    // Scroll areas (the tables and trees) take the request themselves, in their viewport's
    // coordinates: a policy on the viewport is never asked.
    for (QAbstractItemView* view : std::initializer_list<QAbstractItemView*>{
             topView_, treeView_, bottomUpView_, callers_->callers(), callers_->callees()}) {
        view->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(view, &QWidget::customContextMenuRequested, this, [this, view](QPoint pos) {
            const FrameTarget target = targetAt(view->viewport(), pos);
            if (!target.valid()) return;
            QMenu* menu = frameMenu(target);
            menu->setAttribute(Qt::WA_DeleteOnClose);
            menu->popup(view->viewport()->mapToGlobal(pos));
        });
    }
    for (QWidget* view : std::initializer_list<QWidget*>{flame_, stackChart_->chart()}) {
        view->setContextMenuPolicy(Qt::CustomContextMenu);
        connect(view, &QWidget::customContextMenuRequested, this, [this, view](QPoint pos) {
            const FrameTarget target = targetAt(view, pos);
            if (!target.valid()) return;
            QMenu* menu = frameMenu(target);
            menu->setAttribute(Qt::WA_DeleteOnClose);
            menu->popup(view->mapToGlobal(pos));
        });
    }
    auto* shortcut = new QShortcut(QKeySequence(tr("Ctrl+T")), this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, [this] {
        QWidget* shown = tabs_->currentWidget();
        openTransformMenu(shown->mapToGlobal(shown->rect().center()));
    });
}

} // namespace gilscope::ui
