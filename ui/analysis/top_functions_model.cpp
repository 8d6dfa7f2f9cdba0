#include "ui/analysis/top_functions_model.h"

namespace gilscope::ui {

TopFunctionsModel::TopFunctionsModel(QObject* parent) : QAbstractTableModel(parent) {
}

void TopFunctionsModel::setResult(AnalysisResultPtr result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

int TopFunctionsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !result_) return 0;
    return int(result_->functions.size());
}

int TopFunctionsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TopFunctionsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount()) return {};
    const FunctionRow& r = result_->functions[size_t(index.row())];
    const ProfileSnapshot& s = *result_->snapshot;
    const double all = double(std::max<uint64_t>(s.matchedSamples, 1));
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
    }
    return {};
}

} // namespace gilscope::ui
