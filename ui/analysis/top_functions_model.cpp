#include "ui/analysis/top_functions_model.h"

#include <algorithm>
#include <cmath>

namespace gilscope::ui {

TopFunctionsModel::TopFunctionsModel(QObject* parent) : QAbstractTableModel(parent) {
}

bool TopFunctionsModel::setResult(AnalysisResultPtr result) {
    const bool sameRecording =
        result_ && result && result->snapshot && result->modelSerial == result_->modelSerial;
    std::vector<uint32_t> pos; // function id -> its index in result->functions
    if (sameRecording) {
        pos.assign(result->snapshot->functions.size(), UINT32_MAX);
        for (size_t i = 0; i < result->functions.size(); ++i)
            pos[result->functions[i].func] = uint32_t(i);
    }
    auto listed = [&](uint32_t func) { return func < pos.size() && pos[func] != UINT32_MAX; };
    if (!sameRecording || !std::all_of(order_.begin(), order_.end(), listed)) {
        beginResetModel();
        result_ = std::move(result);
        order_.clear();
        at_.clear();
        if (result_)
            for (size_t i = 0; i < result_->functions.size(); ++i) {
                order_.push_back(result_->functions[i].func);
                at_.push_back(uint32_t(i));
            }
        endResetModel();
        return false;
    }
    // In place: the rows there are get their new figures, new functions come last.
    const int oldRows = int(order_.size());
    result_ = std::move(result);
    for (size_t r = 0; r < order_.size(); ++r) {
        at_[r] = pos[order_[r]];
        pos[order_[r]] = UINT32_MAX;
    }
    std::vector<uint32_t> added;
    for (const FunctionRow& f : result_->functions)
        if (pos[f.func] != UINT32_MAX) added.push_back(f.func);
    if (oldRows > 0)
        emit dataChanged(index(0, OwnPct), index(oldRows - 1, Delta),
                         {Qt::DisplayRole, SortRole, Qt::ToolTipRole});
    if (!added.empty()) {
        beginInsertRows({}, oldRows, oldRows + int(added.size()) - 1);
        for (uint32_t func : added) {
            order_.push_back(func);
            at_.push_back(pos[func]);
        }
        endInsertRows();
    }
    return true;
}

void TopFunctionsModel::setComparison(ComparisonPtr comparison) {
    comparison_ = std::move(comparison);
    if (!order_.empty())
        emit dataChanged(index(0, BaselinePct), index(int(order_.size()) - 1, Delta),
                         {Qt::DisplayRole, SortRole, Qt::ToolTipRole});
}

double TopFunctionsModel::baselinePct(uint32_t func) const {
    if (!comparison_ || !comparison_->refusal.isEmpty()) return NAN;
    const ProfileSnapshot& s = *result_->snapshot;
    if (keysSerial_ != result_->modelSerial || keys_.size() < s.functions.size()) {
        if (keysSerial_ != result_->modelSerial) keys_.clear();
        keysSerial_ = result_->modelSerial;
        for (size_t f = keys_.size(); f < s.functions.size(); ++f)
            keys_.push_back(functionKey(s.functions[f]));
    }
    const auto& shares = comparison_->baseline.functionTotalPct;
    const auto it = shares.find(keys_[func]);
    return it == shares.end() ? 0.0 : it->second;
}

int TopFunctionsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !result_) return 0;
    return int(order_.size());
}

int TopFunctionsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TopFunctionsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount()) return {};
    const FunctionRow& r = rowAt(index.row());
    const ProfileSnapshot& s = *result_->snapshot;
    const double all = double(std::max<uint64_t>(s.matchedSamples, 1));
    if (index.column() == BaselinePct || index.column() == Delta) {
        const double base = baselinePct(r.func);
        if (std::isnan(base)) return {};
        const double value = index.column() == Delta ? 100.0 * r.total / all - base : base;
        switch (role) {
        case Qt::DisplayRole:
            return index.column() == Delta ? QString::asprintf("%+.1f", value)
                                           : QString::number(value, 'f', 1);
        case SortRole:
            return value;
        case Qt::TextAlignmentRole:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        case Qt::ToolTipRole:
            return tr("%1: %2% of the baseline's samples, %3% now (%4 points)")
                .arg(functionName(s, r.func))
                .arg(base, 0, 'f', 1)
                .arg(100.0 * r.total / all, 0, 'f', 1)
                .arg(QString::asprintf("%+.1f", 100.0 * r.total / all - base));
        }
        if (role != FunctionRole && role != FileRole) return {};
    }
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name:
            return functionName(s, r.func);
        case OwnPct:
            return QString::number(100.0 * r.own / all, 'f', 1);
        case TotalPct:
            return QString::number(100.0 * r.total / all, 'f', 1);
        case Own:
            return qulonglong(r.own);
        case Total:
            return qulonglong(r.total);
        case Location:
            return functionLocation(s, r.func);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Name:
            return functionName(s, r.func);
        case OwnPct:
        case Own:
            return qulonglong(r.own);
        case TotalPct:
        case Total:
            return qulonglong(r.total);
        case Location:
            return functionLocation(s, r.func);
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != Name && index.column() != Location)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole:
        return QStringLiteral("%1\n%2\nown %3 (%4%), total %5 (%6%)")
            .arg(functionName(s, r.func), functionLocation(s, r.func))
            .arg(r.own)
            .arg(100.0 * r.own / all, 0, 'f', 1)
            .arg(r.total)
            .arg(100.0 * r.total / all, 0, 'f', 1);
    case FunctionRole:
        return uint(r.func);
    case FileRole:
        return QString::fromStdString(s.functions[r.func].file);
    }
    return {};
}

QVariant TopFunctionsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Name:
        return tr("Function");
    case OwnPct:
        return tr("Own %");
    case TotalPct:
        return tr("Total %");
    case Own:
        return tr("Own");
    case Total:
        return tr("Total");
    case Location:
        return tr("File:line");
    case BaselinePct:
        return tr("Baseline %");
    case Delta:
        return tr("Δ");
    }
    return {};
}

} // namespace gilscope::ui
