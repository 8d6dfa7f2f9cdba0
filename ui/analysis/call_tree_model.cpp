#include "ui/analysis/call_tree_model.h"

#include "ui/analysis/top_functions_model.h"

#include <algorithm>
#include <climits>

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

uint32_t CallTreeModel::addRows(uint32_t parent, uint32_t node, const CallTree& t) {
    const auto id = uint32_t(rows_.size());
    Row r;
    r.func = t.nodes[node].func;
    r.parent = parent;
    r.row = int(rows_[parent].children.size());
    r.current = node;
    rows_.push_back(std::move(r));
    rows_[parent].children.push_back(id);
    for (uint32_t c : t.nodes[node].children)
        addRows(id, c, t);
    return id;
}

bool CallTreeModel::setResult(AnalysisResultPtr result) {
    if (updateInPlace(result)) return true;
    beginResetModel();
    result_ = std::move(result);
    rows_.assign(1, Row{});
    asked_.clear();
    if (const CallTree* t = tree(); t && !t->nodes.empty())
        for (uint32_t c : t->nodes[0].children)
            addRows(0, c, *t);
    endResetModel();
    return false;
}

bool CallTreeModel::updateInPlace(AnalysisResultPtr result) {
    const CallTree* oldTree = tree();
    const CallTree* t = treeOf(result, kind_);
    if (!oldTree || !t || t->nodes.empty() || !result->snapshot ||
        result->modelSerial != result_->modelSerial)
        return false;
    // Match the new tree to the rows by path: current[row] is its new node; paths new to
    // the tree are inserted under the row they hang from.
    std::vector<uint32_t> current(rows_.size(), UINT32_MAX);
    std::vector<std::pair<uint32_t, uint32_t>> added; // (row, new node)
    current[0] = 0;
    size_t matched = 1;
    std::vector<uint32_t> todo{0};
    std::vector<std::pair<uint32_t, uint32_t>> byFunc; // a wide row's children, sorted
    while (!todo.empty()) {
        const uint32_t row = todo.back();
        todo.pop_back();
        const Row& r = rows_[row];
        const CallTreeNode& n = t->nodes[current[row]];
        const bool wide = r.children.size() > 16;
        if (wide) {
            byFunc.clear();
            for (uint32_t c : r.children)
                byFunc.emplace_back(rows_[c].func, c);
            std::sort(byFunc.begin(), byFunc.end());
        }
        for (uint32_t c : n.children) {
            const uint32_t func = t->nodes[c].func;
            uint32_t found = UINT32_MAX;
            if (wide) {
                auto it = std::lower_bound(byFunc.begin(), byFunc.end(),
                                           std::pair<uint32_t, uint32_t>(func, 0));
                if (it != byFunc.end() && it->first == func) found = it->second;
            } else {
                for (uint32_t k : r.children)
                    if (rows_[k].func == func) found = k;
            }
            if (found == UINT32_MAX) {
                added.emplace_back(row, c);
                continue;
            }
            current[found] = c;
            ++matched;
            todo.push_back(found);
        }
    }
    if (matched != rows_.size()) return false; // a path went (another filter): start over

    // Figures that changed, per parent row: one dataChanged over their span.
    std::vector<std::pair<int, int>> changed(rows_.size(), {INT_MAX, -1});
    for (uint32_t row = 1; row < rows_.size(); ++row) {
        const CallTreeNode& was = oldTree->nodes[rows_[row].current];
        const CallTreeNode& now = t->nodes[current[row]];
        if (was.total == now.total && was.self == now.self) continue;
        auto& span = changed[rows_[row].parent];
        span.first = std::min(span.first, rows_[row].row);
        span.second = std::max(span.second, rows_[row].row);
    }
    const bool rootChanged = oldTree->nodes[0].total != t->nodes[0].total; // every %
    result_ = std::move(result);
    for (uint32_t row = 0; row < rows_.size(); ++row)
        rows_[row].current = current[row];
    const QList<int> roles{Qt::DisplayRole, SortRole, Qt::ToolTipRole};
    const auto oldRows = uint32_t(rows_.size());
    asked_.resize(rows_.size(), false);
    for (uint32_t row = 0; row < oldRows; ++row) {
        if (!asked_[row]) continue; // nobody holds its children
        auto [first, last] = changed[row];
        if (rootChanged && !rows_[row].children.empty()) // the percentages all moved
            first = 0, last = int(rows_[row].children.size()) - 1;
        if (last < 0) continue;
        const QModelIndex parent = row == 0 ? QModelIndex() : indexOfRow(row, 0);
        emit dataChanged(index(first, TotalPct, parent), index(last, Self, parent), roles);
    }
    // New paths, grouped by the row they hang from (added is in walk order: one group
    // per row, each contiguous).
    for (size_t i = 0; i < added.size();) {
        const uint32_t row = added[i].first;
        size_t j = i;
        while (j < added.size() && added[j].first == row)
            ++j;
        const int first = int(rows_[row].children.size());
        beginInsertRows(row == 0 ? QModelIndex() : indexOfRow(row, 0), first,
                        first + int(j - i) - 1);
        for (; i < j; ++i)
            addRows(row, added[i].second, *tree());
        endInsertRows();
    }
    return true;
}

QModelIndex CallTreeModel::indexOfRow(uint32_t row, int column) const {
    return createIndex(rows_[row].row, column, quintptr(row));
}

uint32_t CallTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? rows_[index.internalId()].current : 0;
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (rows_.empty() || row < 0 || column < 0 || column >= ColumnCount) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const uint32_t p = parent.isValid() ? uint32_t(parent.internalId()) : 0;
    if (p >= rows_.size() || size_t(row) >= rows_[p].children.size()) return {};
    return createIndex(row, column, quintptr(rows_[p].children[size_t(row)]));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const uint32_t p = rows_[child.internalId()].parent;
    if (p == 0) return {};
    return indexOfRow(p, 0);
}

int CallTreeModel::rowCount(const QModelIndex& parent) const {
    if (rows_.empty() || (parent.isValid() && parent.column() != 0)) return 0;
    const uint32_t p = parent.isValid() ? uint32_t(parent.internalId()) : 0;
    if (p >= asked_.size()) asked_.resize(rows_.size(), false);
    asked_[p] = true;
    return int(rows_[p].children.size());
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
