#include "ui/analysis/call_tree_model.h"

#include "ui/analysis/top_functions_model.h"

namespace gilscope::ui {

CallTreeModel::CallTreeModel(Kind kind, QObject* parent) : QAbstractItemModel(parent), kind_(kind) {
}

const CallTree* CallTreeModel::tree() const {
    if (!result_) return nullptr;
    return kind_ == Kind::TopDown ? &result_->topDown : &result_->bottomUp;
}

void CallTreeModel::setResult(AnalysisResultPtr result) {
    beginResetModel();
    result_ = std::move(result);
    rowInParent_.clear();
    if (const CallTree* t = tree()) {
        rowInParent_.assign(t->nodes.size(), 0);
        for (const CallTreeNode& n : t->nodes)
            for (size_t i = 0; i < n.children.size(); ++i)
                rowInParent_[n.children[i]] = int(i);
    }
    endResetModel();
}

uint32_t CallTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? uint32_t(index.internalId()) : 0;
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const {
    const CallTree* t = tree();
    if (!t || t->nodes.empty() || row < 0 || column < 0 || column >= ColumnCount) return {};
    const uint32_t p = nodeOf(parent);
    if (p >= t->nodes.size() || size_t(row) >= t->nodes[p].children.size()) return {};
    return createIndex(row, column, quintptr(t->nodes[p].children[size_t(row)]));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const {
    const CallTree* t = tree();
    if (!t || !child.isValid()) return {};
    const uint32_t p = t->nodes[nodeOf(child)].parent;
    if (p == 0) return {};
    return createIndex(rowInParent_[p], 0, quintptr(p));
}

int CallTreeModel::rowCount(const QModelIndex& parent) const {
    const CallTree* t = tree();
    if (!t || t->nodes.empty() || (parent.isValid() && parent.column() != 0)) return 0;
    return int(t->nodes[nodeOf(parent)].children.size());
}

int CallTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant CallTreeModel::data(const QModelIndex& index, int role) const {
    const CallTree* t = tree();
    if (!t || !index.isValid()) return {};
    const CallTreeNode& n = t->nodes[nodeOf(index)];
    const ProfileSnapshot& s = *result_->snapshot;
    const double all = double(std::max<uint64_t>(t->nodes[0].total, 1));
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return functionName(s, n.func);
        case TotalPct:
            return QString::number(100.0 * n.total / all, 'f', 1);
        case SelfPct:
            return QString::number(100.0 * n.self / all, 'f', 1);
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
            .arg(100.0 * n.total / all, 0, 'f', 1);
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
