#pragma once

#include "ui/analysis/analysis_result.h"

#include <QAbstractItemModel>

namespace gilscope::ui {

// A top-down or bottom-up CallTree as a tree model: function, total %, self %, total and
// self samples, file:line. Node 0 (the root) is not shown; its children are the top rows.
class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, TotalPct, SelfPct, Total, Self, Location, ColumnCount };
    enum class Kind { TopDown, BottomUp };
    explicit CallTreeModel(Kind kind, QObject* parent = nullptr);

    void setResult(AnalysisResultPtr result);
    const CallTree* tree() const;
    uint32_t nodeOf(const QModelIndex& index) const; // 0 for the root

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    Kind kind_;
    AnalysisResultPtr result_;
    std::vector<int> rowInParent_;
};

} // namespace gilscope::ui
