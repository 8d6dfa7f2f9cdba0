#pragma once

#include "ui/analysis/analysis_result.h"

#include <QAbstractTableModel>

namespace gilscope::ui {

// Roles shared by the analysis item models.
enum AnalysisRole {
    SortRole = Qt::UserRole + 1, // numbers as numbers
    FunctionRole,                // function id (uint) in the current snapshot
    FileRole,                    // the function's file path
};

// One row per function with samples: own %, total %, own and total samples, file:line.
// Percentages are of the samples the filter kept.
class TopFunctionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, OwnPct, TotalPct, Own, Total, Location, ColumnCount };
    explicit TopFunctionsModel(QObject* parent = nullptr);

    void setResult(AnalysisResultPtr result);
    const AnalysisResultPtr& result() const { return result_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    AnalysisResultPtr result_;
};

} // namespace gilscope::ui
