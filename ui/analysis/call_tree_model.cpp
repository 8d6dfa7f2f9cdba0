#include "ui/analysis/call_tree_model.h"

#include "ui/analysis/top_functions_model.h"

#include <algorithm>

namespace gilscope::ui {

CallTreeModel::CallTreeModel(Kind kind, QObject* parent) : QAbstractItemModel(parent), kind_(kind) {
}

const CallTree* CallTreeModel::treeOf(const AnalysisResultPtr& result, Kind kind) {
    if (!result) return nullptr;
    return kind == Kind::TopDown ? &result->topDown : &result->bottomUp;
}

const CallTree* CallTreeModel::tree() const {
    return treeOf(result_, kind_);
}

bool CallTreeModel::setResult(AnalysisResultPtr result) {
    const CallTree* oldTree = tree();
    const CallTree* newTree = treeOf(result, kind_);
    const bool keep = oldTree && newTree && !newTree->empty() && result->snapshot &&
                      result->modelSerial == result_->modelSerial;
    if (!keep) {
        beginResetModel();
        result_ = std::move(result);
        endResetModel();
        return false;
    }
    // Every index somebody holds moves to the node with the same path of functions in
    // the new tree, or goes when that path is gone (another filter).
    emit layoutAboutToBeChanged();
    const QModelIndexList held = persistentIndexList();
    QModelIndexList moved;
    moved.reserve(held.size());
    std::vector<uint32_t> path;
    for (const QModelIndex& old : held) {
        path.clear();
        for (uint32_t n = uint32_t(old.internalId()); n != 0; n = oldTree->parent(n))
            path.push_back(oldTree->func(n));
        uint32_t node = 0;
        for (auto f = path.rbegin(); f != path.rend(); ++f)
            if ((node = newTree->child(node, *f)) == 0) break;
        moved.push_back(node == 0
                            ? QModelIndex()
                            : createIndex(int(newTree->row(node)), old.column(), quintptr(node)));
    }
    result_ = std::move(result);
    changePersistentIndexList(held, moved);
    emit layoutChanged();
    return true;
}

QModelIndex CallTreeModel::indexOfNode(uint32_t node, int column) const {
    return createIndex(int(tree()->row(node)), column, quintptr(node));
}

uint32_t CallTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? uint32_t(index.internalId()) : 0;
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const {
    const CallTree* t = tree();
    if (!t || t->empty() || row < 0 || column < 0 || column >= ColumnCount) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const auto children = t->children(nodeOf(parent));
    if (size_t(row) >= children.size()) return {};
    return createIndex(row, column, quintptr(children[size_t(row)]));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const uint32_t p = tree()->parent(nodeOf(child));
    if (p == 0) return {};
    return indexOfNode(p, 0);
}

int CallTreeModel::rowCount(const QModelIndex& parent) const {
    const CallTree* t = tree();
    if (!t || t->empty() || (parent.isValid() && parent.column() != 0)) return 0;
    return int(t->children(nodeOf(parent)).size());
}

bool CallTreeModel::hasChildren(const QModelIndex& parent) const {
    const CallTree* t = tree();
    if (!t || t->empty() || (parent.isValid() && parent.column() != 0)) return false;
    return t->hasChildren(nodeOf(parent)); // a bottom-up row stays unexplored until opened
}

int CallTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant CallTreeModel::data(const QModelIndex& index, int role) const {
    const CallTree* t = tree();
    if (!t || !index.isValid()) return {};
    const uint32_t node = nodeOf(index);
    struct {
        uint32_t func;
        uint64_t total, self;
    } const n{t->func(node), t->total(node), t->self(node)};
    const ProfileSnapshot& s = *result_->snapshot;
    const double all = double(std::max<uint64_t>(t->total(0), 1));
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return functionName(s, n.func);
        case TotalPct:
            return QString::number(100.0 * double(n.total) / all, 'f', 1);
        case SelfPct:
            return QString::number(100.0 * double(n.self) / all, 'f', 1);
        case Total:
            return qulonglong(n.total);
        case Self:
            return qulonglong(n.self);
        case Location:
            return functionLocation(s, n.func);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Name:
            return functionName(s, n.func);
        case TotalPct:
        case Total:
            return qulonglong(n.total);
        case SelfPct:
        case Self:
            return qulonglong(n.self);
        case Location:
            return functionLocation(s, n.func);
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != Name && index.column() != Location)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        return QStringLiteral("%1\n%2\n%3 samples (%4%)")
            .arg(functionName(s, n.func), functionLocation(s, n.func))
            .arg(n.total)
            .arg(100.0 * double(n.total) / all, 0, 'f', 1);
    case FunctionRole:
        return uint(n.func);
    case FileRole:
        return n.func < s.functions.size() ? QString::fromStdString(s.functions[n.func].file)
                                           : QString();
    }
    return {};
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    const bool up = kind_ == Kind::BottomUp;
    switch (section) {
    case Name:
        return up ? tr("Function (callers below)") : tr("Function");
    case TotalPct:
        return tr("Total %");
    case SelfPct:
        return up ? tr("Outermost %") : tr("Self %");
    case Total:
        return tr("Total");
    case Self:
        return up ? tr("Outermost") : tr("Self");
    case Location:
        return tr("File:line");
    }
    return {};
}

} // namespace gilscope::ui
